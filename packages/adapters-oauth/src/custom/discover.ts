import { AuthError, type OidcDiscovery } from "@latchkey/domain";
import * as oauth from "oauth4webapi";

const REQUIRED = ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri"] as const;

/** The error's message with its causes' (undici's "fetch failed" says why only in its cause). */
function reasonOf(error: unknown): string {
  const messages: string[] = [];
  for (let each = error; each instanceof Error && messages.length < 4; each = each.cause) messages.push(each.message);
  return messages.length > 0 ? messages.join(": ") : String(error);
}

const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((each) => typeof each === "string") ? value : null;

/**
 * CustomProviderRuntime.discover: the document at `url` (the issuer's well-known one, or the admin's override),
 * through the guarded fetch; oauth4webapi checks it is JSON and that its `issuer` is `expectedIssuer`. Fields the
 * sign-in needs must be there (GoTrue refuses the provider up front rather than failing the first sign-in).
 */
export async function discover(
  fetchFn: typeof globalThis.fetch,
  url: string,
  expectedIssuer: string,
): Promise<OidcDiscovery> {
  let server: oauth.AuthorizationServer;
  try {
    const response = await fetchFn(url, { headers: { Accept: "application/json" } });
    server = await oauth.processDiscoveryResponse(new URL(expectedIssuer), response);
  } catch (error) {
    const reason = reasonOf(error);
    throw new AuthError("validation_failed", `OIDC discovery from "${url}" failed: ${reason}`, { cause: error });
  }
  const missing = REQUIRED.filter((field) => typeof server[field] !== "string" || server[field] === "");
  if (missing.length > 0) {
    throw new AuthError(
      "validation_failed",
      `OIDC discovery document is missing required fields: ${missing.join(", ")}`,
    );
  }
  return {
    issuer: server.issuer,
    authorizationEndpoint: server.authorization_endpoint!,
    tokenEndpoint: server.token_endpoint!,
    userinfoEndpoint: server.userinfo_endpoint ?? null,
    jwksUri: server.jwks_uri!,
    scopesSupported: strings(server.scopes_supported),
    responseTypesSupported: strings(server.response_types_supported),
    grantTypesSupported: strings(server.grant_types_supported),
    subjectTypesSupported: strings(server.subject_types_supported),
  };
}
