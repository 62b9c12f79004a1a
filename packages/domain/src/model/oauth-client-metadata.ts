import { AuthError } from "../errors.ts";
import {
  OAUTH_GRANT_TYPES,
  type OAuthGrantType,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
} from "./oauth-client.ts";

// The rules a client's metadata follows, as GoTrue checks them at registration and update (its oauthserver
// service.go), in its words: every refusal is a 400 `validation_failed`.

const MAX_REDIRECT_URIS = 10;
const MAX_NAME_LENGTH = 1024;
const MAX_URI_LENGTH = 2048;
/** Schemes that run code or read local data where a browser lands: never a redirect target. */
const DANGEROUS_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "about:", "blob:"]);
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const invalid = (message: string) => new AuthError("validation_failed", message);

/**
 * A client's redirect URIs (RFC 6749 3.1.2, OAuth 2.1): absolute, with a host, no fragment, no scheme that runs
 * code; plain http only for loopback (a CLI's or an MCP client's local listener); custom schemes (`myapp://`) for
 * native apps. At most MAX_REDIRECT_URIS.
 */
export function checkRedirectUris(uris: readonly string[] | undefined, { required }: { required: boolean }): string[] {
  if (uris === undefined || uris.length === 0) {
    throw invalid(required ? "redirect_uris is required" : "redirect_uris cannot be empty");
  }
  if (uris.length > MAX_REDIRECT_URIS) throw invalid(`redirect_uris cannot exceed ${MAX_REDIRECT_URIS} items`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) throw invalid(`invalid redirect_uri '${uri}': ${problem}`);
  }
  return [...uris];
}

function redirectUriProblem(uri: string): string | null {
  if (uri === "") return "redirect URI cannot be empty";
  if (!URL.canParse(uri)) return "invalid URL format";
  const url = new URL(uri);
  if (url.host === "") return "must have scheme and host";
  if (DANGEROUS_SCHEMES.has(url.protocol)) {
    return `scheme '${url.protocol.slice(0, -1)}' is not allowed for security reasons`;
  }
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) return "HTTP scheme only allowed for localhost";
  if (url.hash !== "" || uri.includes("#")) return "fragment not allowed in redirect URI";
  return null;
}

export function checkGrantTypes(grantTypes: readonly string[]): OAuthGrantType[] {
  if (grantTypes.length === 0) throw invalid("grant_types cannot be empty");
  if (!grantTypes.every((each): each is OAuthGrantType => (OAUTH_GRANT_TYPES as readonly string[]).includes(each))) {
    throw invalid("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
  return [...new Set(grantTypes)];
}

export function checkAuthMethod(method: string): TokenEndpointAuthMethod {
  if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    throw invalid(`token_endpoint_auth_method must be one of: ${TOKEN_ENDPOINT_AUTH_METHODS.join(", ")}`);
  }
  return method as TokenEndpointAuthMethod;
}

/** client_name, client_uri, logo_uri: bounded, and the URIs absolute URLs. Empty means none. */
export function checkDescriptiveFields(fields: {
  readonly clientName?: string | undefined;
  readonly clientUri?: string | undefined;
  readonly logoUri?: string | undefined;
}): void {
  if (fields.clientName !== undefined && [...fields.clientName].length > MAX_NAME_LENGTH) {
    throw invalid(`client_name cannot exceed ${MAX_NAME_LENGTH} characters`);
  }
  for (const [name, value] of [
    ["client_uri", fields.clientUri],
    ["logo_uri", fields.logoUri],
  ] as const) {
    if (value === undefined || value === "") continue;
    if (value.length > MAX_URI_LENGTH) throw invalid(`${name} cannot exceed ${MAX_URI_LENGTH} characters`);
    if (!URL.canParse(value)) throw invalid(`${name} must be a valid URL`);
  }
}
