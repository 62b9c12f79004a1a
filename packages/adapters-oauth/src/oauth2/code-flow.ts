import * as oauth from "oauth4webapi";
import { providerFailure } from "../http/provider-http.ts";

/** How the client authenticates at the token endpoint: HTTP Basic, or the secret in the form body. */
export type ClientAuthMethod = "basic" | "post";

export interface AuthorizationUrlInput {
  readonly endpoint: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string;
  /** Joined with spaces; left out when empty. */
  readonly scopes: readonly string[];
  /** Fixed parameters of the provider, then the client's; a later value of a name replaces an earlier one. */
  readonly params?: readonly (readonly [string, string])[];
}

/** The provider's authorization URL: `response_type=code`, the client, the redirect, the state and the scope. */
export function authorizationUrl(input: AuthorizationUrlInput): string {
  const url = new URL(input.endpoint);
  const query = url.searchParams;
  for (const [name, value] of input.params ?? []) query.set(name, value);
  query.set("response_type", "code");
  query.set("client_id", input.clientId);
  query.set("redirect_uri", input.redirectUri);
  query.set("state", input.state);
  const scope = input.scopes.filter((scope) => scope !== "").join(" ");
  if (scope !== "") query.set("scope", scope);
  // URLSearchParams writes spaces as `+`, which some providers (Apple) do not read as spaces.
  url.search = query.toString().replaceAll("+", "%20");
  return url.toString();
}

export interface CodeExchangeInput {
  readonly provider: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly secret: string;
  readonly clientAuth: ClientAuthMethod;
  readonly code: string;
  readonly redirectUri: string;
  /** The PKCE verifier, for providers that take one from us (X). */
  readonly codeVerifier?: string | undefined;
  /** Further form fields some providers want (Apple's `client_id`). */
  readonly form?: Readonly<Record<string, string>>;
  readonly fetch: typeof globalThis.fetch;
}

/** The token endpoint's answer: its fields, and the access token it must carry. */
export interface TokenAnswer {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly idToken: string | undefined;
  /** Every field, for providers that put more in it (WorkOS's profile). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/**
 * Trades the code for tokens. oauth4webapi builds and authenticates the request (RFC 6749 form encoding of the
 * credentials for Basic). The answer is read here, leniently, because social providers stray from RFC 6749 in
 * ways a strict client refuses: GitHub answers errors with 200, Slack with 200 and `ok: false`, WorkOS sends no
 * `token_type`, some answer form-encoded.
 */
export async function exchangeCode(input: CodeExchangeInput): Promise<TokenAnswer> {
  const server: oauth.AuthorizationServer = { issuer: input.tokenEndpoint, token_endpoint: input.tokenEndpoint };
  const client: oauth.Client = { client_id: input.clientId };
  const auth =
    input.clientAuth === "basic" ? oauth.ClientSecretBasic(input.secret) : oauth.ClientSecretPost(input.secret);
  const callback = oauth.validateAuthResponse(
    server,
    client,
    new URLSearchParams({ code: input.code }),
    oauth.skipStateCheck,
  );
  let response: Response;
  try {
    response = await oauth.authorizationCodeGrantRequest(
      server,
      client,
      auth,
      callback,
      input.redirectUri,
      input.codeVerifier ?? oauth.nopkce,
      {
        [oauth.customFetch]: input.fetch,
        [oauth.allowInsecureRequests]: input.tokenEndpoint.startsWith("http:"),
        ...(input.form ? { additionalParameters: input.form } : {}),
      },
    );
  } catch (error) {
    throw providerFailure(input.provider, "exchange", "could not be reached", error);
  }
  const text = await response.text();
  const fields = parseTokenAnswer(text, response.headers.get("content-type"));
  const details = { status: response.status, body: text };
  if (response.status < 200 || response.status > 299) {
    throw providerFailure(input.provider, "exchange", `answered ${response.status}`, details);
  }
  if (fields === undefined) throw providerFailure(input.provider, "exchange", "answered what cannot be read", details);
  if (fields["error"] !== undefined || fields["ok"] === false) {
    throw providerFailure(input.provider, "exchange", "refused the code", details);
  }
  const accessToken = fields["access_token"];
  if (typeof accessToken !== "string" || accessToken === "") {
    throw providerFailure(input.provider, "exchange", "answered without an access token", details);
  }
  const refreshToken = fields["refresh_token"];
  const idToken = fields["id_token"];
  return {
    accessToken,
    refreshToken: typeof refreshToken === "string" && refreshToken !== "" ? refreshToken : null,
    idToken: typeof idToken === "string" && idToken !== "" ? idToken : undefined,
    fields,
  };
}

/** JSON, or form-encoded (GitHub without an Accept header, older Facebook): whichever the text is. */
function parseTokenAnswer(text: string, contentType: string | null): Record<string, unknown> | undefined {
  if (contentType?.includes("application/x-www-form-urlencoded") || contentType?.includes("text/plain")) {
    const form = Object.fromEntries(new URLSearchParams(text));
    if (Object.keys(form).length > 0 && !text.trimStart().startsWith("{")) return form;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A PKCE verifier and its S256 challenge, for providers that require PKCE from us (X). */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}
