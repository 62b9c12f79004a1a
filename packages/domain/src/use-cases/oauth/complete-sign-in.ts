import { AuthError, isAuthError } from "../../errors.ts";
import { OAUTH_FLOW_LIFETIME_SECONDS, type OAuthFlow } from "../../model/oauth-flow.ts";
import { isUuid } from "../../model/uuid.ts";
import type { ProviderTokens } from "../../ports/oauth-provider.ts";
import type { Deps, RequestContext, SessionGrant } from "../deps.ts";
import { grantSignIn, openSession } from "../sessions/sessions.ts";
import { issueAuthCode } from "../sign-in/auth-code.ts";
import { linkIdentityToUser } from "./link-identity.ts";
import { providerFailed } from "./provider-failure.ts";
import { needsVerification, onceMoreIfRaced, signInWithProviderProfile } from "./provider-sign-in.ts";
import { enabledProvider } from "./start-sign-in.ts";

export interface CompleteOAuthInput {
  /** The callback's parameters: the query of a GET, the form of a POST. */
  readonly params: Readonly<Record<string, string>>;
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

type Completion =
  | { kind: "session"; grant: SessionGrant; provider: string; tokens: ProviderTokens }
  | { kind: "auth_code"; authCode: string };

async function complete(deps: Deps, flow: OAuthFlow, input: CompleteOAuthInput): Promise<Completion> {
  const provider = enabledProvider(deps, flow.provider);
  const secret = flow.sealedSecret === null ? null : deps.secrets.open(flow.sealedSecret);
  const signIn = await provider.complete({ params: input.params, secret }).catch((error: unknown) => {
    throw providerFailed(error, input.params["code"] ?? "");
  });
  let signedUp = false;
  const outcome = await onceMoreIfRaced(() =>
    deps.tx.run(async (stores) => {
      // A linking flow (GET /user/identities/authorize) ends signed in as the user it linked to, as GoTrue's does.
      const result =
        flow.linkingTargetId === null
          ? await signInWithProviderProfile(deps, stores, {
              provider: provider.name,
              profile: signIn.profile,
              emailOptional: provider.emailOptional,
              inviteUserId: flow.inviteUserId,
              redirectTo: flow.redirectTo,
              context: input.context,
            })
          : await linkIdentityToUser(deps, stores, {
              userId: flow.linkingTargetId,
              provider: provider.name,
              profile: signIn.profile,
              redirectTo: flow.redirectTo,
              context: input.context,
            });
      signedUp = result.signedUp === true;
      if (result.kind === "needs_verification") return result;
      if (flow.codeChallenge !== null && flow.codeChallengeMethod !== null) {
        const authCode = await issueAuthCode(deps, stores, {
          userId: result.user.id,
          pkce: { challenge: flow.codeChallenge, method: flow.codeChallengeMethod },
          authenticationMethod: "oauth",
          provider: {
            name: provider.name,
            sealedAccessToken: deps.secrets.seal(signIn.tokens.accessToken),
            sealedRefreshToken:
              signIn.tokens.refreshToken === null ? null : deps.secrets.seal(signIn.tokens.refreshToken),
          },
          // The code's five minutes count from /authorize, as GoTrue's do.
          createdAt: flow.createdAt,
        });
        return { kind: "auth_code" as const, authCode };
      }
      return {
        kind: "session" as const,
        user: result.user,
        ...(await openSession(deps, stores, result.user, "oauth", input.context)),
      };
    }),
  );
  // Counted once committed: the account exists even while its address waits for confirmation.
  if (signedUp) deps.events.record({ kind: "signed_up", provider: provider.name });
  switch (outcome.kind) {
    case "needs_verification":
      // Committed: the confirmation mail is on its way. GoTrue says so in the same words when linking.
      throw needsVerification(
        outcome.provider,
        true,
        flow.linkingTargetId !== null ? "email_not_confirmed" : "provider_email_needs_verification",
      );
    case "auth_code":
      return outcome;
    case "session":
      return {
        kind: "session",
        grant: await grantSignIn(deps, outcome.user, outcome.session, outcome.refreshToken, provider.name),
        provider: provider.name,
        tokens: signIn.tokens,
      };
  }
}
