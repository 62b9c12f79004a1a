import type { SessionGrant } from "@latchkey/domain";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** `target` with `params` as its fragment, where implicit-flow tokens travel (never sent to servers, unlike a query). */
export function withFragment(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  url.hash = new URLSearchParams(params).toString();
  return url.toString();
}

/** `target` with `params` added to its query, keeping what it had. */
export function withQuery(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/** GoTrue's fragment for a session delivered by redirect: keys in alphabetical order, as it writes them. */
export function sessionFragment(grant: SessionGrant, type: string): Record<string, string> {
  return {
    access_token: grant.accessToken,
    expires_at: String(grant.expiresAt),
    expires_in: String(grant.expiresIn),
    refresh_token: grant.refreshToken,
    token_type: grant.tokenType,
    type,
  };
}

/** GoTrue's OAuth-style `error` for a status; statuses it has none for carry only the code and description. */
const OAUTH_ERRORS: Partial<Record<number, string>> = {
  400: "invalid_request",
  401: "unauthorized_client",
  403: "access_denied",
  500: "server_error",
  503: "temporarily_unavailable",
};

/** The parameters that tell a browser app (auth-js) that a redirect carries a failure. */
export function errorParams(status: ContentfulStatusCode, code: string, description: string): Record<string, string> {
  const error = OAUTH_ERRORS[status];
  return { ...(error ? { error } : {}), error_code: code, error_description: description };
}
