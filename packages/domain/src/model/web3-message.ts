import { AuthError } from "../errors.ts";

// The message a wallet signs to sign in: Sign-In-With-Ethereum (EIP-4361) and Sign-In-With-Solana, read as
// Supabase Auth reads them (its internal/utilities/siwe and siws parsers, one grammar for both chains), so that a
// message it takes is taken here, and one it refuses is refused with its words (`siwe: ...`, `siws: ...`), which
// are answered as `validation_failed`.
//
// Parsed here, by hand, rather than with a library: viem's parseSiweMessage and @solana/wallet-standard-util's
// parseSignInMessage each read one fixed order of fields, with a nonce required by the first, and say nothing of
// what is wrong. Supabase Auth takes the fields in any order, a message without a nonce (auth-js writes none unless
// it is given one) and, for Solana, auth-js's own messages, whose fields are in another order than the Solana
// library's. The parser only reads text; the signature is the Web3Verifier's (ports/web3.ts).

export type Web3Chain = "ethereum" | "solana";

/** The fields of a signed sign-in message. */
export interface Web3Message {
  /** The message as signed, byte for byte. */
  readonly raw: string;
  /** The first line's domain (a host, with a port maybe), which asks for the sign-in. */
  readonly domain: string;
  /** The account, as the message writes it: 0x and 40 hex digits (Ethereum), base58 (Solana). */
  readonly address: string;
  /** Null when the message has none. */
  readonly statement: string | null;
  readonly uri: Web3MessageUri;
  readonly version: string;
  /** `Chain ID`: an EIP-155 chain id (Ethereum), `solana:mainnet` and the like (Solana); empty when absent. */
  readonly chainId: string;
  readonly nonce: string;
  readonly issuedAt: Date;
  readonly expirationTime: Date | null;
  readonly notBefore: Date | null;
  readonly requestId: string | null;
  readonly resources: readonly string[];
}

/** The `URI` field: an absolute URI, or an absolute path (Go's url.ParseRequestURI takes both). */
export interface Web3MessageUri {
  /** As written. */
  readonly text: string;
  /** Without the colon; empty for a path. */
  readonly scheme: string;
  /** Host and port, as written; empty for a path. */
  readonly host: string;
  /** The host without its port (and without the brackets of an IPv6 address). */
  readonly hostname: string;
}

const HEADER_SUFFIX: Readonly<Record<Web3Chain, string>> = {
  ethereum: " wants you to sign in with your Ethereum account:",
  solana: " wants you to sign in with your Solana account:",
};
const PREFIX: Readonly<Record<Web3Chain, string>> = { ethereum: "siwe", solana: "siws" };
const ADDRESS: Readonly<Record<Web3Chain, RegExp>> = {
  ethereum: /^0x[a-fA-F0-9]{40}$/,
  solana: /^[a-zA-Z0-9]{32,44}$/,
};
const DOMAIN = /^(localhost|(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,})(?::\d{1,5})?$/;
const SOLANA_NETWORK = /^solana:(main|dev|test|local)net$/;
/** RFC 3339, as Go's time.RFC3339 layout reads it (fractions of a second allowed). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

type Fail = (reason: string) => never;

/** The fields after the header and the statement, each `Key: value` in any order, and the resources. */
interface Fields {
  uri?: Web3MessageUri;
  version: string;
  chainId: string;
  nonce: string;
  issuedAt?: Date;
  expirationTime: Date | null;
  notBefore: Date | null;
  requestId: string | null;
  resources: string[];
}

/**
 * The message's fields, or AuthError `validation_failed` with Supabase Auth's words for what is wrong: fewer than
 * 6 lines, another header, a domain or address that is none, a third line that is not empty, a line that is no
 * `Key: value`, a URI, timestamp, chain id or resource that does not parse, a version other than 1, no URI or
 * Issued At, and times out of order.
 */
export function parseWeb3Message(chain: Web3Chain, raw: string): Web3Message {
  const fail: Fail = (reason) => {
    throw new AuthError("validation_failed", `${PREFIX[chain]}: ${reason}`);
  };
  const lines = raw.split("\n");
  if (lines.length < 6) fail("message needs at least 6 lines");
  const { domain, address } = readHeader(chain, lines, fail);
  if (lines[2] !== "") fail("third line must be empty");
  const hasStatement = lines[3] !== "" && lines[4] === "";
  const statement = hasStatement ? lines[3]! : null;
  const fields = readFields(chain, lines, hasStatement ? 5 : 3, fail);
  if (fields.version !== "1") fail(`Version value is not supported, expected 1 got ${JSON.stringify(fields.version)}`);
  const { uri, issuedAt, expirationTime, notBefore } = fields;
  if (issuedAt === undefined) return fail("Issued At is not specified");
  if (uri === undefined) return fail("URI is not specified");
  if (expirationTime !== null && issuedAt > expirationTime) fail("Issued At is after Expiration Time");
  if (notBefore !== null && expirationTime !== null && notBefore > expirationTime) {
    fail("Not Before is after Expiration Time");
  }
  return { raw, domain, address, statement, ...fields, uri, issuedAt };
}

/** The first two lines: the domain that asks, and the account. */
function readHeader(chain: Web3Chain, lines: readonly string[], fail: Fail) {
  const header = lines[0]!;
  const suffix = HEADER_SUFFIX[chain];
  if (!header.endsWith(suffix)) fail(`message first line does not end in "${suffix}"`);
  const domain = header.slice(0, -suffix.length).trim();
  if (!DOMAIN.test(domain)) fail("domain in first line of message is not valid");
  const address = lines[1]!.trim();
  if (!ADDRESS[chain].test(address)) {
    fail(
      chain === "ethereum"
        ? "wallet address is not a valid Ethereum address"
        : "wallet address is not in base58 format",
    );
  }
  return { domain, address };
}

function readFields(chain: Web3Chain, lines: readonly string[], start: number, fail: Fail): Fields {
  const fields: Fields = {
    version: "",
    chainId: "",
    nonce: "",
    expirationTime: null,
    notBefore: null,
    requestId: null,
    resources: [],
  };
  let inResources = false;
  for (let index = start; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (inResources && line.startsWith("- ")) {
      const resource = line.slice(2).trim();
      if (requestUri(resource) === null) fail(`Resource at position ${fields.resources.length} has invalid URI`);
      fields.resources.push(resource);
      continue;
    }
    inResources = line === "Resources:";
    if (inResources || line === "") continue;
    const colon = line.indexOf(":");
    if (colon < 0) fail(`encountered unparsable line at index ${index}`);
    readField(chain, fields, { key: line.slice(0, colon), value: line.slice(colon + 1).trim() }, fail);
  }
  return fields;
}

function readField(
  chain: Web3Chain,
  fields: Fields,
  { key, value }: { readonly key: string; readonly value: string },
  fail: Fail,
): void {
  const timestamp = (name: string): Date => {
    const at = TIMESTAMP.test(value) ? new Date(value) : null;
    return at === null || Number.isNaN(at.getTime()) ? fail(`${name} is not a valid ISO8601 timestamp`) : at;
  };
  switch (key) {
    case "URI":
      fields.uri = requestUri(value) ?? fail("URI is not valid");
      break;
    case "Version":
      fields.version = value;
      break;
    case "Chain ID":
      if (!validChainId(chain, value)) fail("Chain ID is not valid");
      fields.chainId = value;
      break;
    case "Nonce":
      fields.nonce = value;
      break;
    case "Issued At":
      fields.issuedAt = timestamp("Issued At");
      break;
    case "Expiration Time":
      fields.expirationTime = timestamp("Expiration Time");
      break;
    case "Not Before":
      fields.notBefore = timestamp("Not Before");
      break;
    case "Request ID":
      fields.requestId = value;
      break;
  }
}

/** Ethereum: a positive EIP-155 chain id, required when the line is there; Solana: one of its clusters, or none. */
function validChainId(chain: Web3Chain, value: string): boolean {
  if (chain === "solana") return value === "" || SOLANA_NETWORK.test(value);
  return /^[+-]?\d{1,18}$/.test(value) && Number.parseInt(value, 10) > 0;
}

/** An absolute URI or an absolute path, as Go's url.ParseRequestURI takes them; null for anything else. */
function requestUri(value: string): Web3MessageUri | null {
  if (value === "" || /[\s\p{Cc}]/u.test(value)) return null;
  if (value.startsWith("/")) return { text: value, scheme: "", host: "", hostname: "" };
  const scheme = SCHEME.exec(value)?.[1];
  if (scheme === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  // The host as written (WHATWG's parser drops a default port, which Go keeps).
  const host = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(value)?.[1] ?? "";
  return { text: value, scheme: scheme.toLowerCase(), host, hostname: url.hostname.replace(/^\[|\]$/g, "") };
}
