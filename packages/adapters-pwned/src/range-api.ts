import { createHash } from "node:crypto";
import type { PwnedPasswords } from "@latchkey/domain";
import { BloomFilter } from "./bloom-filter.ts";
import { PrefixCache, type PrefixCacheLimits } from "./prefix-cache.ts";

/** PASSWORD_HIBP_URL's default: HaveIBeenPwned's Pwned Passwords API. */
export const DEFAULT_PWNED_PASSWORDS_URL = "https://api.pwnedpasswords.com";
/** GoTrue's PASSWORD_HIBP_USER_AGENT default; the service refuses requests without one. */
export const DEFAULT_PWNED_PASSWORDS_USER_AGENT = "https://github.com/supabase/gotrue";
/** GoTrue's client gives each range request 5 seconds: a password check must not hold a signup for long. */
export const DEFAULT_PWNED_PASSWORDS_TIMEOUT_MS = 5_000;

/** A padded range is 800 to 1,000 lines of some 40 bytes; the largest ranges are a few times that. */
const MAX_ANSWER_BYTES = 512 * 1024;
const DEFAULT_CACHE: PrefixCacheLimits = { ttlMs: 5 * 60_000, maxEntries: 100 };
const RANGE_LINE = /^([0-9A-F]{35}):(\d+)$/i;
/** GoTrue clears its filter once more than 80% of its items were added, to keep the real false-positive rate low. */
const BLOOM_FILL_LIMIT = 0.8;

/** PASSWORD_HIBP_BLOOM_*: how many breached hashes the filter is sized for, and at what false-positive rate. */
interface BloomOptions {
  readonly items: number;
  readonly falsePositives: number;
}

export interface RangeApiOptions {
  /** PASSWORD_HIBP_URL: the service, or a stand-in of its range API. */
  readonly url?: string;
  /** PASSWORD_HIBP_USER_AGENT */
  readonly userAgent?: string;
  readonly timeoutMs?: number;
  /** How long and how many range answers are kept (5 minutes, 100 ranges); 0 keeps none. */
  readonly cache?: Partial<PrefixCacheLimits>;
  /**
   * GoTrue's bloom-filter cache, in front of the ranges: every breached hash of a range fetched is remembered, and
   * a password whose hash the filter holds is pwned without a request. Off when absent.
   */
  readonly bloom?: BloomOptions;
  readonly fetch?: typeof globalThis.fetch;
  /** For tests of the cache's expiry; Date.now by default. */
  readonly now?: () => number;
}

/** The service could not be asked, or answered what is not a range of its own. */
export class PwnedPasswordsError extends Error {
  override readonly name = "PwnedPasswordsError";
}

interface RangeRequest {
  readonly userAgent: string;
  readonly timeoutMs: number;
  readonly fetch: typeof globalThis.fetch;
}

/**
 * Pwned Passwords by k-anonymity, as the service documents it and GoTrue asks it: only the first 5 hex digits of
 * the password's SHA-1 leave the server (`GET /range/<prefix>`, padded with `Add-Padding: true` so the answer's
 * size does not tell the prefix either), and the rest of the hash is looked up in the answer, whose lines are
 * `SUFFIX:COUNT` (padding lines count 0, and are no breach).
 */
export function createRangeApiPwnedPasswords(options: RangeApiOptions = {}): PwnedPasswords {
  const base = (options.url ?? DEFAULT_PWNED_PASSWORDS_URL).replace(/\/+$/, "");
  const cache = new PrefixCache({ ...DEFAULT_CACHE, ...options.cache }, options.now ?? Date.now);
  const bloom = options.bloom === undefined ? undefined : bloomCache(options.bloom);
  const request: RangeRequest = {
    userAgent: options.userAgent ?? DEFAULT_PWNED_PASSWORDS_USER_AGENT,
    timeoutMs: options.timeoutMs ?? DEFAULT_PWNED_PASSWORDS_TIMEOUT_MS,
    fetch: options.fetch ?? globalThis.fetch,
  };
  return {
    async check(password) {
      const hash = createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();
      // As in GoTrue, a hash the filter holds is pwned even while the service cannot be asked.
      if (bloom?.has(hash)) return "pwned";
      const prefix = hash.slice(0, 5);
      const suffixes = await cache.suffixesOf(prefix, async () => {
        const fetched = await fetchRange(`${base}/range/${prefix}`, request);
        bloom?.addRange(prefix, fetched);
        return fetched;
      });
      return suffixes.includes(`\n${hash.slice(5)}\n`) ? "pwned" : "clean";
    },
  };
}

/**
 * GoTrue's HIBPBloomCache: the filter, and a count of the hashes added since it was last cleared. A range that
 * would take the count past 80% of `items` clears the filter first (the count starts again from that range), so
 * the filter stays below the fill it was sized for. Per process, in memory.
 */
function bloomCache(options: BloomOptions) {
  const filter = new BloomFilter(options.items, options.falsePositives);
  let added = 0;
  return {
    has: (hash: string) => filter.has(hash),
    /** Adds a range's breached suffixes, as returned by breachedSuffixes, under their prefix. */
    addRange(prefix: string, suffixes: string) {
      const breached = suffixes.split("\n").filter((suffix) => suffix !== "");
      added += breached.length;
      if (added > options.items * BLOOM_FILL_LIMIT) {
        filter.clear();
        added = breached.length;
      }
      for (const suffix of breached) filter.add(prefix + suffix);
    },
  };
}

/** The breached suffixes of one range, `\n`-separated with one at each end; throws PwnedPasswordsError. */
async function fetchRange(url: string, request: RangeRequest): Promise<string> {
  let text: string;
  try {
    const response = await request.fetch(url, {
      headers: { "Add-Padding": "true", "User-Agent": request.userAgent, Accept: "text/plain" },
      redirect: "manual",
      // The signal also bounds reading the answer.
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    if (response.status !== 200) {
      void response.body?.cancel().catch(() => undefined);
      throw new PwnedPasswordsError(`answered ${response.status}`);
    }
    text = await readCapped(response, MAX_ANSWER_BYTES);
  } catch (error) {
    throw new PwnedPasswordsError(`range request failed: ${why(error, request.timeoutMs)}`, { cause: error });
  }
  return breachedSuffixes(text);
}

function breachedSuffixes(text: string): string {
  // Every range holds hundreds of suffixes: an empty one is some other server's answer, not a clean bill.
  if (text.trim() === "") throw new PwnedPasswordsError("range request failed: the answer is empty");
  const breached: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const match = RANGE_LINE.exec(line.trim());
    if (!match) throw new PwnedPasswordsError("range request failed: the answer is not a range of suffixes");
    if (Number(match[2]) > 0) breached.push(match[1]!.toUpperCase());
  }
  return `\n${breached.join("\n")}\n`;
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw new PwnedPasswordsError(`the answer is larger than ${maxBytes} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** One line for the operator: a timeout as such, else the error's message and its cause's (fetch's is terse). */
function why(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  if (error instanceof PwnedPasswordsError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ? `${message}: ${cause}` : message;
}
