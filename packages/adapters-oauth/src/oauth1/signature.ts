import { createHmac } from "node:crypto";

/**
 * OAuth 1.0a request signing (RFC 5849 §3.4, HMAC-SHA1), written out rather than taken from a package: the only
 * maintained-looking one was last changed in 2019, and the whole job is a few functions. Everything here is pure;
 * the caller brings the nonce and the timestamp.
 */

/** A parameter as sent: its name and value, not yet encoded. */
export type Parameter = readonly [name: string, value: string];

/** RFC 5849 §3.6: UTF-8, then every octet outside RFC 3986's unreserved set as `%XX` with upper-case hex. */
export function percentEncode(value: string): string {
  // encodeURIComponent leaves !'()* as they are; RFC 3986 does not count them as unreserved.
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * RFC 5849 §3.4.1.3.2: every parameter encoded, sorted by encoded name and then by encoded value (byte order, so
 * repeated names keep a stable order), written as `name=value` and joined with `&`.
 */
export function normalizedParameters(params: Iterable<Parameter>): string {
  const encoded = [...params].map(([name, value]) => [percentEncode(name), percentEncode(value)] as const);
  encoded.sort(([nameA, valueA], [nameB, valueB]) => compare(nameA, nameB) || compare(valueA, valueB));
  return encoded.map(([name, value]) => `${name}=${value}`).join("&");
}

/** Code-unit order, which is byte order for the ASCII that percentEncode leaves. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * RFC 5849 §3.4.1.2: scheme and host in lower case, the port only when it is not the scheme's default, the path;
 * no query, no fragment. WHATWG URL parsing already normalises the first three.
 */
export function baseStringUri(url: string | URL): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/**
 * RFC 5849 §3.4.1.1: the method, the base string URI and the normalized parameters, each encoded, joined with
 * `&`. The parameters are the URL's query (form-decoded, §3.4.1.3.1) and `params`: the protocol parameters
 * without `oauth_signature` and `realm`, and the fields of a form-encoded body.
 */
export function signatureBaseString(method: string, url: string | URL, params: Iterable<Parameter>): string {
  const query = [...new URL(url).searchParams];
  return [
    method.toUpperCase(),
    percentEncode(baseStringUri(url)),
    percentEncode(normalizedParameters([...query, ...params])),
  ].join("&");
}

/** RFC 5849 §3.4.2: HMAC-SHA1 of the base string keyed by `consumerSecret&tokenSecret` (each encoded), base64. */
export function hmacSha1Signature(baseString: string, consumerSecret: string, tokenSecret = ""): string {
  const key = `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`;
  return createHmac("sha1", key).update(baseString).digest("base64");
}

/** A key and its secret: the client's (consumer) credentials, or a temporary or token credential. */
export interface OAuth1Credentials {
  readonly key: string;
  readonly secret: string;
}

export interface OAuth1SigningInput {
  readonly method: string;
  /** With its query, which is signed. */
  readonly url: string;
  readonly consumer: OAuth1Credentials;
  /** The request token or the access token; absent for the request-token call. */
  readonly token?: OAuth1Credentials | undefined;
  /** Further protocol parameters: `oauth_callback`, `oauth_verifier`. */
  readonly protocol?: Readonly<Record<string, string>>;
  /** The fields of a form-encoded body, which are signed too. */
  readonly form?: readonly Parameter[];
  readonly nonce: string;
  /** Seconds since the epoch. */
  readonly timestamp: number;
}

/** The protocol parameters of a request, `oauth_signature` included, sorted by name. */
export function signRequest(input: OAuth1SigningInput): Record<string, string> {
  const protocol: Record<string, string> = {
    ...input.protocol,
    oauth_consumer_key: input.consumer.key,
    oauth_nonce: input.nonce,
    oauth_signature_method: "HMAC-SHA1",
    oauth_timestamp: String(input.timestamp),
    oauth_version: "1.0",
    ...(input.token ? { oauth_token: input.token.key } : {}),
  };
  const baseString = signatureBaseString(input.method, input.url, [...Object.entries(protocol), ...(input.form ?? [])]);
  const signature = hmacSha1Signature(baseString, input.consumer.secret, input.token?.secret ?? "");
  const signed = { ...protocol, oauth_signature: signature };
  return Object.fromEntries(Object.entries(signed).sort(([a], [b]) => compare(a, b)));
}

/** RFC 5849 §3.5.1: `OAuth name="value", ...`, names and values encoded. */
export function authorizationHeader(protocol: Readonly<Record<string, string>>): string {
  const fields = Object.entries(protocol).map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`);
  return `OAuth ${fields.join(", ")}`;
}
