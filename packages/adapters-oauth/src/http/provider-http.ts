import { OAuthProviderFailure, type OAuthProviderStage } from "@latchkey/domain";

/**
 * A provider answered what cannot be used. The details (its status and words) go to the cause, which is logged,
 * never to the client or the redirect.
 */
export function providerFailure(
  provider: string,
  stage: OAuthProviderStage,
  message: string,
  cause?: unknown,
): OAuthProviderFailure {
  return new OAuthProviderFailure(provider, stage, message, { cause });
}

/**
 * A failure met at another stage than the one it was made for (discovery serves the exchange, the start and the
 * id_token grant): the same words, at `stage`.
 */
export function atStage(
  provider: string,
  stage: OAuthProviderStage,
  error: unknown,
  otherwise: string,
): OAuthProviderFailure {
  if (!(error instanceof OAuthProviderFailure)) return providerFailure(provider, stage, otherwise, error);
  return providerFailure(provider, stage, error.message.replace(`${provider}: `, ""), error.cause);
}

/** A GET to a provider: where, with which headers, and the stage a failure is told at (the profile unless said). */
export interface JsonGet {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly stage?: OAuthProviderStage;
}

/** The provider's answer to a GET with these headers, as JSON; anything but a 2xx JSON answer throws. */
export async function getJson(
  fetchFn: typeof globalThis.fetch,
  provider: string,
  { url, headers, stage = "profile" }: JsonGet,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { headers: { Accept: "application/json", ...headers } });
  } catch (error) {
    throw providerFailure(provider, stage, "could not be reached", error);
  }
  const text = await response.text();
  if (response.status < 200 || response.status > 299) {
    throw providerFailure(provider, stage, `answered ${response.status}`, { status: response.status, body: text });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw providerFailure(provider, stage, "answered what is not JSON", error);
  }
}

/** The value as an object of fields, or an empty one: profile answers are read field by field. */
export function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The value if it is a non-empty string. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A string, or a number written as one (ids some providers send as numbers). */
export function idOf(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return stringOf(value);
}

/** The claims without the keys whose value is undefined or empty: GoTrue omits empty claims. */
export function claimsOf(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined && value !== ""));
}
