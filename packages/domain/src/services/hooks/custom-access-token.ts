import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { AccessTokenClaims } from "../../model/access-token-claims.ts";
import { checkedCustomClaims } from "../../model/custom-claims.ts";
import type { Stores } from "../../ports/stores.ts";
import { callHook, hookMetadata } from "./call-hook.ts";

/** GoTrue's names for how the token came to be issued: the session's sign-in method, a refresh, a second factor. */
export type TokenIssuance = string;

/** What an access token is about to carry, and why it is issued. */
export interface ClaimsToCustomize {
  readonly claims: AccessTokenClaims;
  /** GoTrue's `authentication_method`: `password`, `otp`, `oauth`, `token_refresh`, `totp`, `mfa/phone`, ... */
  readonly method: TokenIssuance;
  readonly context: RequestContext | null;
}

/**
 * The claims an access token is signed with: ours, or what the custom_access_token hook made of them, which must
 * still pass GoTrue's schema. Called in the transaction that opened or moved the session (`stores`), so that a
 * function in the database sees what it wrote and a failure undoes it.
 */
export async function customizedClaims(
  deps: Deps,
  stores: Stores,
  { claims, method, context }: ClaimsToCustomize,
): Promise<Readonly<Record<string, unknown>>> {
  const hook = deps.hooks.custom_access_token;
  if (hook === undefined) return claims;
  const payload = {
    metadata: hookMetadata(deps, "custom_access_token", context),
    user_id: claims.sub,
    claims,
    authentication_method: method,
  };
  const answer = await callHook(hook, { name: "custom_access_token", payload, stores });
  if (answer !== null && !("claims" in answer)) {
    throw new AuthError("unexpected_failure", "output claims field is missing");
  }
  const customized = answer?.["claims"] ?? null;
  if (customized !== null && (typeof customized !== "object" || Array.isArray(customized))) {
    throw new AuthError("unexpected_failure", "Error unmarshaling JSON output.");
  }
  return checkedCustomClaims(customized);
}
