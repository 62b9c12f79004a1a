import {
  type KeyRing,
  KeyRingError,
  parseKeyRing,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from "@latchkey/adapters-crypto";
import { MAX_NAMESPACE_LENGTH, validateNamespace } from "@latchkey/adapters-postgres";
import { checkSamlPrivateKey } from "@latchkey/adapters-saml";
import { normalizePhone, parseGoDuration, parseRequiredCharacters } from "@latchkey/domain";
import * as v from "valibot";

// Value syntax of configuration variables. Each schema turns one non-empty string into its typed value, or adds
// one issue whose message never repeats the input: the loader adds the value itself unless the variable is secret.

/** Go's strconv.ParseBool, which existing GoTrue deployments were written against. */
const GO_BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ...["1", "t", "T", "TRUE", "true", "True"].map((text) => [text, true] as const),
  ...["0", "f", "F", "FALSE", "false", "False"].map((text) => [text, false] as const),
]);

export function parseGoBool(text: string): boolean | undefined {
  return GO_BOOLEANS.get(text);
}

/** Seconds, from either a bare number (the specification) or a Go duration string (GoTrue). */
function parseSeconds(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const millis = parseGoDuration(text);
  return millis === null || millis < 0 ? undefined : millis / 1000;
}

function parseWholeNumber(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

function parseNonNegativeNumber(text: string): number | undefined {
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}

/** A schema over a string that parses it, or reports `expected` when `parse` returns undefined. */
function parsed<T>(parse: (text: string) => T | undefined, expected: string) {
  return v.pipe(
    v.string(),
    v.rawTransform<string, T>(({ dataset, addIssue, NEVER }) => {
      const value = parse(dataset.value);
      if (value === undefined) {
        addIssue({ message: expected });
        return NEVER;
      }
      return value;
    }),
  );
}

export const text = v.string();

/** SAML_PRIVATE_KEY: base64 of a PKCS#1 DER RSA key fit to sign, with Supabase Auth's complaints when it is not. */
export const samlPrivateKey = v.pipe(
  v.string(),
  v.rawTransform<string, string>(({ dataset, addIssue, NEVER }) => {
    const problem = checkSamlPrivateKey(dataset.value);
    if (problem === null) return dataset.value;
    addIssue({ message: problem });
    return NEVER;
  }),
);

export const flag = parsed(parseGoBool, "expected a boolean (true or false)");

/** A switch read from a name other programs share (DEBUG): on when true, off for anything else, never refused. */
export const lenientFlag = v.pipe(
  v.string(),
  v.transform((input) => parseGoBool(input) === true),
);

export function wholeNumber({ min, max }: { min?: number; max?: number } = {}) {
  return parsed(
    (input) => {
      const value = parseWholeNumber(input);
      if (value === undefined || (min !== undefined && value < min) || (max !== undefined && value > max))
        return undefined;
      return value;
    },
    `expected a whole number${describeRange(min, max)}`,
  );
}

function describeRange(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return "";
}

export const port = wholeNumber({ min: 1, max: 65_535 });
/** 0 lets the operating system pick a free port. */
export const listenPort = wholeNumber({ min: 0, max: 65_535 });

const nonNegativeNumber = parsed(parseNonNegativeNumber, "expected a number of at least 0");

/** A rate strictly between 0 and 1, in decimals (0.0000099) or, as Go's ParseFloat reads it too, exponent (1e-5). */
export const probability = parsed((input) => {
  if (!/^(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(input)) return undefined;
  const value = Number(input);
  return value > 0 && value < 1 ? value : undefined;
}, "expected a number between 0 and 1, both excluded");

/** A duration kept as seconds; `positive` refuses 0 where 0 would disable the feature or expire at once. */
export function seconds(options: { positive?: boolean; whole?: boolean } = {}) {
  const expected = `expected ${options.whole ? "whole " : ""}seconds${
    options.positive ? " above 0" : ""
  } (60) or a Go duration (60s, 15m, 1h30m)`;
  return parsed((input) => {
    const value = parseSeconds(input);
    if (value === undefined) return undefined;
    if (options.positive && value === 0) return undefined;
    if (options.whole && !Number.isInteger(value)) return undefined;
    return value;
  }, expected);
}

/** Comma-separated; entries trimmed, empty ones dropped. */
export const list = v.pipe(
  v.string(),
  v.transform((input): readonly string[] =>
    input
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
  ),
);

/** `|`-separated, as GoTrue reads a hook's secrets; empty entries dropped. */
export const pipeList = v.pipe(
  v.string(),
  v.transform((input): readonly string[] => input.split("|").filter((entry) => entry !== "")),
);

export const httpUrl = parsed((input) => (isHttpUrl(input) ? input : undefined), "expected an absolute http(s) URL");

/** A path on API_EXTERNAL_URL, or a full URL for links served elsewhere. */
export const urlPath = parsed(
  (input) => (input.startsWith("/") || isHttpUrl(input) ? input : undefined),
  "expected a path starting with / or an absolute http(s) URL",
);

export const emailAddress = parsed(
  (input) => (/^[^\s@<>]+@[^\s@<>]+$/.test(input) ? input : undefined),
  "expected an email address",
);

/** node-postgres reads only URLs; a libpq keyword string would fail later with a vaguer error. */
export const postgresUrl = parsed((input) => {
  if (!URL.canParse(input)) return undefined;
  const { protocol } = new URL(input);
  return protocol === "postgres:" || protocol === "postgresql:" ? input : undefined;
}, "expected a postgres:// or postgresql:// URL");

/** ioredis reads redis:// and rediss:// (TLS) URLs; a password in one is why the variable counts as a secret. */
export const redisUrl = parsed((input) => {
  if (!URL.canParse(input)) return undefined;
  const { protocol, hostname } = new URL(input);
  return (protocol === "redis:" || protocol === "rediss:") && hostname !== "" ? input : undefined;
}, "expected a redis:// or rediss:// URL");

/**
 * security: the namespace is spliced into SQL identifiers. The database adapter's own rule decides, so the start
 * stops here, in the list of problems, rather than later with a stack trace.
 */
export const dbNamespace = parsed((input) => {
  try {
    return validateNamespace(input);
  } catch {
    return undefined;
  }
}, `expected letters, digits and underscores, not starting with a digit, at most ${MAX_NAMESPACE_LENGTH} characters`);

/** JWT_KEYS: every problem of the ring its own issue, each naming keys by position and kid, never by material. */
export const keyRing = v.pipe(
  v.string(),
  v.rawTransform<string, KeyRing>(({ dataset, addIssue, NEVER }) => {
    try {
      return parseKeyRing(dataset.value);
    } catch (error) {
      if (!(error instanceof KeyRingError)) throw error;
      for (const problem of error.problems) addIssue({ message: problem });
      return NEVER;
    }
  }),
);

/** JWT_VALID_METHODS: algorithm names, comma-separated, each one Latchkey verifies. */
export const algorithmList = parsed(
  (input) => {
    const names = input
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    const known = new Set<string>(SIGNING_ALGORITHMS);
    return names.length > 0 && names.every((name) => known.has(name)) ? (names as SigningAlgorithm[]) : undefined;
  },
  `expected a comma-separated list of ${SIGNING_ALGORITHMS.join(", ")}`,
);

/** Comma-separated names, each one of `values`; entries trimmed, empty ones dropped. */
export function listOf<const T extends string>(values: readonly T[]) {
  return parsed(
    (input): readonly T[] | undefined => {
      const names = input
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "");
      return names.every((name) => values.some((value) => value === name)) ? (names as T[]) : undefined;
    },
    `expected a comma-separated list of ${values.join(", ")}`,
  );
}

export function oneOf<const T extends string>(values: readonly T[], options: { ignoreCase?: boolean } = {}) {
  const expected = `expected one of ${values.join(", ")}`;
  return parsed((input) => {
    const candidate = options.ignoreCase ? input.toLowerCase() : input;
    return values.find((value) => value === candidate);
  }, expected);
}

/** A count of events over a window. */
export interface Rate {
  readonly events: number;
  readonly perSeconds: number;
}

/** compat: GoTrue's Rate type: a bare number is per hour, `N/duration` is N per that duration. */
function parseRate(input: string): Rate | undefined {
  const perHour = parseNonNegativeNumber(input);
  if (perHour !== undefined) return { events: perHour, perSeconds: 3600 };
  const match = /^(\d+)\/(.+)$/.exec(input);
  if (!match) return undefined;
  const events = Number(match[1]);
  const perSeconds = parseSeconds(match[2] ?? "");
  return perSeconds === undefined || perSeconds === 0 ? undefined : { events, perSeconds };
}

export const ratePerHourOrWindow = parsed(parseRate, "expected a number per hour (30) or a count per duration (10/1m)");

/** A rate whose window is fixed by GoTrue (per 5 minutes or per hour); the variable sets the count. */
export function countPer(perSeconds: number) {
  return v.pipe(
    nonNegativeNumber,
    v.transform((events): Rate => ({ events, perSeconds })),
  );
}

export const requiredCharacters = v.pipe(
  v.string(),
  v.transform((input): readonly string[] => parseRequiredCharacters(input)),
);

/** Test phone numbers and their fixed codes, `phone:code,phone:code`; phones normalized to E.164. */
function parseTestOtp(input: string): Readonly<Record<string, string>> | undefined {
  const codes: Record<string, string> = {};
  for (const entry of input.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const separator = entry.lastIndexOf(":");
    const code = entry.slice(separator + 1).trim();
    if (separator <= 0 || !/^\d+$/.test(code)) return undefined;
    const phone = tryNormalizePhone(entry.slice(0, separator));
    if (phone === undefined) return undefined;
    codes[phone] = code;
  }
  return codes;
}

function tryNormalizePhone(raw: string): string | undefined {
  try {
    return normalizePhone(raw);
  } catch {
    return undefined;
  }
}

export const testOtpMap = parsed(parseTestOtp, "expected phone:code pairs separated by commas (15551234567:123456)");

/** RFC 3339, as GoTrue's time.Time reads it. */
export const timestamp = parsed((input) => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(input)) return undefined;
  const date = new Date(input);
  return Number.isNaN(date.getTime()) ? undefined : date;
}, "expected an RFC 3339 timestamp (2030-01-01T00:00:00Z)");

/** A 32-byte key in base64url (GoTrue's) or standard base64, padded or not. */
function parseKey(input: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(input)) return undefined;
  const key = Buffer.from(input.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""), "base64url");
  return key.length === 32 ? key : undefined;
}

export const encryptionKey = parsed(parseKey, "expected 32 bytes in base64url (openssl rand -base64 32)");

/** `id:key,id2:key2`, each key as encryptionKey reads it. */
export const keyIdMap = parsed((input): ReadonlyMap<string, Buffer> | undefined => {
  const keys = new Map<string, Buffer>();
  for (const entry of input.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const key = colon > 0 ? parseKey(entry.slice(colon + 1)) : undefined;
    if (key === undefined) return undefined;
    keys.set(entry.slice(0, colon), key);
  }
  return keys;
}, "expected id:key pairs separated by commas, each key 32 bytes in base64url");
