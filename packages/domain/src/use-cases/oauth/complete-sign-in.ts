import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, isAuthError } from "../../errors.ts";
import type { PendingLink } from "../../model/flow-state.ts";
import { OAUTH_FLOW_LIFETIME_SECONDS, type OAuthFlow } from "../../model/oauth-flow.ts";
import type { ProviderTokens } from "../../model/provider-profile.ts";
import type { User } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import type { Stores } from "../../ports/stores.ts";
import { afterUserCreated } from "../../services/hooks/user-created.ts";
import { onceMoreIfRaced } from "../../services/identities/once-more-if-raced.ts";
import { needsVerification } from "../../services/identities/provider-sign-in.ts";
import { grantSignIn, openSession } from "../../services/sessions.ts";
import { issueAuthCode } from "../../services/tokens/auth-code.ts";
import { oauthBindingDigest } from "../../services/tokens/digests.ts";
import { providerFailed } from "./provider-failure.ts";
import { signInWithProviderProfile } from "./sign-in-with-profile.ts";
import { enabledProvider } from "./start-sign-in.ts";

export interface CompleteOAuthInput {
  /** The callback's parameters: the query of a GET, the form of a POST. */
  readonly params: Readonly<Record<string, string>>;
  /** The secret the browser kept since /authorize for the flow `state` names (StartedOAuth.browserBinding). */
  readonly browserBinding?: ((flowId: string) => string | undefined) | undefined;
  readonly context: RequestContext;
}

/** Where the browser goes after /callback, and what it carries. */
export type CompleteOAuthResult = { readonly redirectTo: string } & (
  | {
      readonly kind: "session";
      readonly grant: SessionGrant;
      readonly provider: string;
      readonly tokens: ProviderTokens;
    }
  /** PKCE: a code the client exchanges with its verifier. */
  | { readonly kind: "auth_code"; readonly authCode: string }
  /** The provider's own refusal (`error=access_denied`), passed on. */
  | { readonly kind: "provider_error"; readonly error: string; readonly description: string | undefined }
  /** Refused after the flow was found: the error goes to the flow's target. */
  | { readonly kind: "failed"; readonly error: AuthError }
);

/**
 * GET or POST /callback: the provider sends the browser back with the flow's `state`. A state that is missing,
 * unknown, used or expired throws (its error goes to SITE_URL, as the flow's target is unknown); anything after
 * that is answered at the flow's target.
 */
export async function completeOAuth(deps: Deps, input: CompleteOAuthInput): Promise<CompleteOAuthResult> {
  const flow = await takeFlow(deps, input.params["state"]);
  assertSameBrowser(deps, flow, input.browserBinding?.(flow.id));
  const { redirectTo } = flow;
  const error = input.params["error"];
  if (error) return { kind: "provider_error", redirectTo, error, description: input.params["error_description"] };
  try {
    return { redirectTo, ...(await complete(deps, flow, input)) };
  } catch (thrown) {
    const failure = isAuthError(thrown)
      ? thrown
      : new AuthError("unexpected_failure", "Unexpected failure", { cause: thrown });
    return { kind: "failed", redirectTo, error: failure };
  }
}

async function takeFlow(deps: Deps, state: string | undefined): Promise<OAuthFlow> {
  if (!state) throw new AuthError("bad_oauth_callback", "OAuth state parameter missing");
  if (!isUuid(state)) throw new AuthError("bad_oauth_state", "OAuth state parameter is invalid");
  const flow = await deps.stores.oauthFlows.take(state);
  if (!flow) throw new AuthError("bad_oauth_state", "OAuth state not found or expired");
  if (deps.clock.now().getTime() >= flow.createdAt.getTime() + OAUTH_FLOW_LIFETIME_SECONDS * 1000) {
    throw new AuthError("bad_oauth_state", "OAuth state has expired");
  }
  return flow;
}

/**
 * security: a sign-in ends only in the browser that started it, so that a callback URL someone else started (with
 * their account at the provider) cannot sign its opener in to their account. The flow is used up either way.
 */
function assertSameBrowser(deps: Deps, flow: OAuthFlow, presented: string | undefined): void {
  if (flow.browserBindingHash === null) return;
  if (
    presented === undefined ||
    !deps.secrets.equal(oauthBindingDigest(deps.secrets, presented), flow.browserBindingHash)
  )
    throw new AuthError("bad_oauth_state", "OAuth state was not started in this browser");
}

type Completion =
  | { kind: "session"; grant: SessionGrant; provider: string; tokens: ProviderTokens }
  | { kind: "auth_code"; authCode: string };

async function complete(deps: Deps, flow: OAuthFlow, input: CompleteOAuthInput): Promise<Completion> {
  const provider = await enabledProvider(deps, flow.provider);
  const secret = flow.sealedSecret === null ? null : deps.secrets.open(flow.sealedSecret);
  const signIn = await provider.complete({ params: input.params, secret }).catch((error: unknown) => {
    throw providerFailed(error, input.params["code"] ?? "");
  });
  const pkce =
    flow.codeChallenge !== null && flow.codeChallengeMethod !== null
      ? { challenge: flow.codeChallenge, method: flow.codeChallengeMethod }
      : null;
  const codeOf = (stores: Stores, userId: string, pendingLink: PendingLink | null) =>
    issueAuthCode(deps, stores, {
      userId,
      pkce: pkce!,
      authenticationMethod: "oauth",
      provider: {
        name: provider.name,
        sealedAccessToken: deps.secrets.seal(signIn.tokens.accessToken),
        sealedRefreshToken: signIn.tokens.refreshToken === null ? null : deps.secrets.seal(signIn.tokens.refreshToken),
      },
      pendingLink,
      // The code's five minutes count from /authorize, as GoTrue's do.
      createdAt: flow.createdAt,
    });
  if (flow.linkingTargetId !== null) {
    // A linking flow (GET /user/identities/authorize) ends in a code: the identity is linked, and the user signed
    // in, when the code is exchanged with the verifier of the user who asked (exchange-auth-code.ts).
    if (pkce === null) throw new AuthError("validation_failed", "Linking an identity needs the PKCE flow");
    const userId = flow.linkingTargetId;
    const pendingLink = { provider: provider.name, profile: signIn.profile };
    return { kind: "auth_code", authCode: await deps.tx.run((stores) => codeOf(stores, userId, pendingLink)) };
  }
  let created: User | undefined;
  const outcome = await onceMoreIfRaced(() =>
    deps.tx.run(async (stores) => {
      const result = await signInWithProviderProfile(deps, stores, {
        provider: provider.name,
        profile: signIn.profile,
        emailOptional: provider.emailOptional,
        inviteUserId: flow.inviteUserId,
        redirectTo: flow.redirectTo,
        context: input.context,
      });
      created = result.created;
      if (result.kind === "needs_verification") return result;
      if (pkce !== null) return { kind: "auth_code" as const, authCode: await codeOf(stores, result.user.id, null) };
      return {
        kind: "session" as const,
        user: result.user,
        ...(await openSession(deps, stores, result.user, { method: "oauth", context: input.context })),
      };
    }),
  );
  // Counted once committed: the account exists even while its address waits for confirmation.
  if (created !== undefined) {
    deps.events.record({ kind: "signed_up", provider: provider.name });
    await afterUserCreated(deps, { user: created, context: input.context });
  }
  if (outcome.kind === "needs_verification") {
    // Committed: the confirmation mail is on its way.
    throw needsVerification(outcome.provider, true);
  }
  if (outcome.kind === "auth_code") return outcome;
  const grant = await grantSignIn(deps, outcome.user, outcome, provider.name);
  return { kind: "session", grant, provider: provider.name, tokens: signIn.tokens };
}
