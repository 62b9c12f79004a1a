import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { FLOW_STATE_LIFETIME_SECONDS } from "../../model/flow-state.ts";
import { verifierMatches } from "../../model/pkce.ts";
import { isBanned } from "../../model/user.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { recordAudit } from "../../services/audit.ts";
import { linkIdentityToUser } from "../../services/identities/link-identity.ts";
import { needsVerification } from "../../services/identities/provider-sign-in.ts";
import { grantSignIn, openSession } from "../../services/sessions.ts";
import { authCodeDigest } from "../../services/tokens/digests.ts";

export interface ExchangeAuthCodeInput {
  readonly authCode: string;
  readonly codeVerifier: string;
  readonly context: RequestContext;
}

/**
 * POST /token?grant_type=pkce: trades the code a PKCE link led to, with the verifier only the browser that asked
 * for the link holds, for a session. A code is tried once: right, wrong or late, it is gone. A linking flow's code
 * links its identity first (complete-sign-in.ts).
 */
export async function exchangeAuthCode(deps: Deps, input: ExchangeAuthCodeInput): Promise<SessionGrant> {
  await limitPerClient(deps, "token", input.context);
  if (input.authCode === "" || input.codeVerifier === "") {
    throw new AuthError("validation_failed", "invalid request: both auth code and code verifier should be non-empty");
  }
  const flow = await deps.stores.flowStates.consume(authCodeDigest(deps.secrets, input.authCode));
  if (!flow) throw new AuthError("flow_state_not_found", "invalid flow state, no valid flow state found");
  const now = deps.clock.now();
  if (now.getTime() >= flow.createdAt.getTime() + FLOW_STATE_LIFETIME_SECONDS * 1000) {
    throw new AuthError("flow_state_expired", "invalid flow state, flow state has expired");
  }
  const challenge = { challenge: flow.codeChallenge, method: flow.codeChallengeMethod };
  if (!verifierMatches(input.codeVerifier, challenge, deps.secrets.sha256, deps.secrets.equal)) {
    throw new AuthError("bad_code_verifier", "code challenge does not match previously saved code verifier");
  }

  const opened = await deps.tx.run(async (stores) => {
    const found = await stores.users.findById(flow.userId, { forUpdate: flow.pendingLink !== null });
    // A user deleted (softly) since the link was followed signs in no more.
    if (!found || found.deletedAt !== null)
      throw new AuthError("flow_state_not_found", "invalid flow state, no valid flow state found");
    if (isBanned(found, now)) throw new AuthError("user_banned", messages.userBanned);
    let user = found;
    if (flow.pendingLink !== null) {
      // A linking flow: the identity joins the user who asked for the link, now that their verifier came back.
      const linked = await linkIdentityToUser(deps, stores, {
        userId: flow.userId,
        provider: flow.pendingLink.provider,
        profile: flow.pendingLink.profile,
        redirectTo: deps.policy.redirect.siteUrl,
        context: input.context,
      });
      // Committed with its confirmation mail; the client hears that the address waits (GoTrue's words).
      if (linked.kind === "needs_verification") return linked;
      user = linked.user;
    }
    const signedIn = { ...user, lastSignInAt: now };
    await stores.users.update(signedIn);
    await recordAudit(deps, stores, {
      action: "login",
      actor: signedIn,
      context: input.context,
      traits: { provider: flow.provider?.name ?? "email", method: flow.authenticationMethod },
    });
    const session = await openSession(deps, stores, signedIn, {
      method: flow.authenticationMethod,
      context: input.context,
    });
    return { kind: "signed_in" as const, user: signedIn, ...session };
  });
  if (opened.kind === "needs_verification") throw needsVerification(opened.provider, true, "email_not_confirmed");
  const grant = await grantSignIn(deps, opened.user, opened, flow.provider?.name);
  if (flow.provider === null) return grant;
  const { sealedAccessToken, sealedRefreshToken } = flow.provider;
  const providerTokens = {
    accessToken: deps.secrets.open(sealedAccessToken),
    refreshToken: sealedRefreshToken === null ? null : deps.secrets.open(sealedRefreshToken),
  };
  return { ...grant, providerTokens };
}
