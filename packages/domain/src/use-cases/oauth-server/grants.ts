import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { OAuthConsent } from "../../model/oauth-authorization.ts";
import { scopesOf } from "../../model/oauth-authorization.ts";
import type { OAuthClient } from "../../model/oauth-client.ts";
import { isEmailConfirmed, isPhoneConfirmed } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import { recordAudit } from "../../services/audit.ts";
import { profileClaims } from "./id-token.ts";
import { assertServerEnabled, findClient } from "./server.ts";

/** A client the user allowed, and what: GET /user/oauth/grants' entries. */
export interface OAuthGrant {
  readonly client: OAuthClient;
  readonly consent: OAuthConsent;
}

/** GET /user/oauth/grants: the clients the signed-in user allowed and has not revoked (deleted clients left out). */
export async function listGrants(deps: Deps, input: { readonly principal: Principal }): Promise<OAuthGrant[]> {
  assertServerEnabled(deps);
  const consents = await deps.stores.oauthConsents.listActive(input.principal.user.id);
  const grants = await Promise.all(
    consents.map(async (consent) => {
      const client = await findClient(deps, consent.clientId);
      return client === null ? [] : [{ client, consent }];
    }),
  );
  return grants.flat();
}

/**
 * DELETE /user/oauth/grants?client_id=: the user takes back what a client was allowed. Its consent is revoked (the
 * next authorization asks again) and every session the client holds for the user ends, so its refresh tokens stop
 * working and its access tokens stop being accepted where sessions are checked. In the audit log as GoTrue writes it.
 */
export async function revokeGrant(
  deps: Deps,
  input: { readonly principal: Principal; readonly clientId: string | undefined; readonly context: RequestContext },
): Promise<void> {
  assertServerEnabled(deps);
  if (!input.clientId) throw new AuthError("validation_failed", "client_id query parameter is required");
  if (!isUuid(input.clientId)) throw new AuthError("validation_failed", "invalid client_id format");
  const clientId = input.clientId;
  const user = input.principal.user;
  await deps.tx.run(async (stores) => {
    if (!(await stores.oauthConsents.revoke(user.id, clientId, deps.clock.now()))) {
      throw new AuthError("oauth_consent_not_found", "No active grant found for this client");
    }
    await stores.sessions.deleteOfClient(user.id, clientId);
    const traits = { oauth_client_id: clientId, action: "revoke_oauth_grant" };
    await recordAudit(deps, stores, { action: "token_revoked", actor: user, context: input.context, traits });
  });
}

/**
 * GET /oauth/userinfo (OIDC Core 5.3): the signed-in user's claims that the token's scopes allow; `sub` alone for a
 * token of no third-party session.
 */
export async function userInfo(deps: Deps, input: { readonly principal: Principal }): Promise<Record<string, unknown>> {
  assertServerEnabled(deps);
  const { user, session } = input.principal;
  const scopes = session?.scopes ? scopesOf(session.scopes) : [];
  const email = scopes.includes("email");
  const phone = scopes.includes("phone");
  return {
    sub: user.id,
    ...(email && user.email ? { email: user.email } : {}),
    ...(email && isEmailConfirmed(user) ? { email_verified: true } : {}),
    ...(scopes.includes("profile") ? { ...profileClaims(user), user_metadata: user.userMetadata } : {}),
    ...(phone && user.phone ? { phone: user.phone } : {}),
    ...(phone && isPhoneConfirmed(user) ? { phone_verified: true } : {}),
  };
}
