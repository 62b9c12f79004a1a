import type { Deps, LinkRequest, Principal } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { CUSTOM_PROVIDER_PREFIX } from "../../model/custom-provider.ts";
import { RESERVED_AUTHORIZE_PARAMS } from "../../model/oauth-flow.ts";
import { canonicalProvider, isKnownProvider } from "../../model/oauth-providers.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { hasVerifiedFactor } from "../../model/user.ts";
import { type OAuthProvider, OAuthProviderFailure } from "../../ports/oauth-provider.ts";
import { linkTokenDigest, oauthBindingDigest } from "../../services/tokens/digests.ts";
import { providerFailed } from "./provider-failure.ts";

export interface StartOAuthInput extends LinkRequest {
  readonly provider: string;
  /** `scopes=`: comma- or space-separated, added to the provider's defaults. */
  readonly scopes?: string | undefined;
  /** The invitation the sign-in accepts (the token of an invite link). */
  readonly inviteToken?: string | undefined;
  /** Every query parameter, in order: those that are not reserved go on to the provider (`login_hint`, `hd`, ...). */
  readonly params: readonly (readonly [string, string])[];
  /** GET /user/identities/authorize: the signed-in user the identity is to be linked to. */
  readonly linkingTarget?: Principal;
}

/** GoTrue's answer on /user/identities/* while SECURITY_MANUAL_LINKING_ENABLED is off. */
function requireManualLinking(deps: Deps): void {
  if (!deps.policy.manualLinkingEnabled) throw new AuthError("manual_linking_disabled", "Manual linking is disabled");
}

/**
 * What a user must be to link or unlink an identity: manual linking on, and, once a second factor is verified, an
 * aal2 session. security: a new identity is a lasting way in that skips the second factor, so a stolen password
 * alone must not add one, as it cannot change the password or the email (GoTrue asks for no aal2 here).
 */
export function requireLinkingAllowed(deps: Deps, principal: Principal): void {
  requireManualLinking(deps);
  if (hasVerifiedFactor(principal.user) && principal.session?.aal !== "aal2") {
    throw new AuthError(
      "insufficient_aal",
      "AAL2 session is required to link or unlink identities when MFA is enabled.",
    );
  }
}

/**
 * The enabled provider of that name (or GoTrue's other name for it), or GoTrue's 400 `validation_failed`; a
 * `custom:` name is a provider an admin added (customProvider).
 */
export async function enabledProvider(deps: Deps, name: string): Promise<OAuthProvider> {
  if (name.toLowerCase().startsWith(CUSTOM_PROVIDER_PREFIX)) return customProvider(deps, name.toLowerCase());
  const canonical = canonicalProvider(deps.oauthCatalog, name);
  const provider = deps.oauthProviders.get(canonical);
  if (provider) return provider;
  throw new AuthError(
    "validation_failed",
    isKnownProvider(deps.oauthCatalog, name)
      ? "Unsupported provider: provider is not enabled"
      : `Unsupported provider: Provider ${name} could not be found`,
  );
}

/** A provider an admin added, as it is now: enabled, its client secret opened. GoTrue's messages when it cannot be. */
async function customProvider(deps: Deps, identifier: string): Promise<OAuthProvider> {
  const unsupported = (why: string) => new AuthError("validation_failed", `Unsupported provider: ${why}`);
  const runtime = deps.customProviders;
  if (!deps.policy.customProviders.enabled || runtime === null) {
    throw unsupported("custom OAuth providers are disabled");
  }
  const stored = await deps.stores.customProviders.findByIdentifier(identifier);
  if (stored === null) throw unsupported(`custom provider ${identifier} not found`);
  if (!stored.enabled) throw unsupported(`custom provider ${identifier} is disabled`);
  return runtime.provider(stored, deps.secrets.open(stored.sealedClientSecret));
}

/**
 * GET /authorize (and /user/identities/authorize): starts a sign-in at a provider. The flow is stored under a new
 * id, which is the `state` the provider hands back; the answer is where to send the browser.
 */
/** When to try a provider that could not be reached again: about when the adapter would ask it again. */
const PROVIDER_RETRY_AFTER_SECONDS = 30;

export type StartedOAuth =
  | {
      readonly kind: "started";
      /** Where to send the browser. */
      readonly url: string;
      /** A sign-in's: what the browser must keep until /callback (a cookie named after the flow), never shown. */
      readonly browserBinding?: { readonly flowId: string; readonly secret: string; readonly provider: string };
    }
  /**
   * The provider could not be reached (its discovery document or its request-token endpoint, say): the app's
   * target, to send the browser back to with the error, which is service_unavailable. Nothing was stored.
   */
  | { readonly kind: "failed"; readonly redirectTo: string; readonly error: AuthError };

export async function startOAuth(deps: Deps, input: StartOAuthInput): Promise<StartedOAuth> {
  if (input.linkingTarget) requireLinkingAllowed(deps, input.linkingTarget);
  const provider = await enabledProvider(deps, input.provider);
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  let inviteUserId: string | null = null;
  if (input.inviteToken) {
    const invite = await deps.stores.oneTimeTokens.findByLinkTokenHash(
      linkTokenDigest(deps.secrets, input.inviteToken),
    );
    if (invite?.kind !== "invite") throw new AuthError("user_not_found", "User identified by token not found");
    inviteUserId = invite.userId;
  }

  if (input.linkingTarget && pkce === null) {
    // security: a link is made when its code is exchanged with the verifier of the user who asked for it, not by
    // whatever browser comes back from the provider (docs/compatibility.md, "OAuth sign-in").
    throw new AuthError(
      "validation_failed",
      "Linking an identity needs the PKCE flow (a code_challenge): the link is made when its code is exchanged",
    );
  }

  const id = deps.random.uuid();
  // A sign-in is bound to the browser that came here: it is given a secret (the HTTP layer's cookie), which the
  // callback must bring back. A link, asked for by an app's request rather than a browser, is bound by PKCE.
  const binding = input.linkingTarget ? undefined : deps.random.token(32);
  const scopes = (input.scopes ?? "").split(/[\s,]+/).filter((scope) => scope !== "");
  const params = input.params.filter(([name]) => !RESERVED_AUTHORIZE_PARAMS.has(name.toLowerCase()));
  let start: Awaited<ReturnType<OAuthProvider["authorize"]>>;
  try {
    start = await provider.authorize({ state: id, scopes, params });
  } catch (error) {
    if (!(error instanceof OAuthProviderFailure)) throw providerFailed(error, "");
    // A provider that cannot be reached is a dependency that cannot serve now, as an unreachable database is.
    const unreachable = new AuthError("service_unavailable", "Unable to start the sign-in with the external provider", {
      cause: error,
      retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS,
    });
    return { kind: "failed", redirectTo, error: unreachable };
  }
  await deps.stores.oauthFlows.insert({
    id,
    provider: provider.name,
    redirectTo,
    codeChallenge: pkce?.challenge ?? null,
    codeChallengeMethod: pkce?.method ?? null,
    inviteUserId,
    linkingTargetId: input.linkingTarget?.user.id ?? null,
    sealedSecret: start.secret === undefined ? null : deps.secrets.seal(start.secret),
    browserBindingHash: binding === undefined ? null : oauthBindingDigest(deps.secrets, binding),
    createdAt: deps.clock.now(),
  });
  const browserBinding = binding === undefined ? undefined : { flowId: id, secret: binding, provider: provider.name };
  return { kind: "started", url: start.url, ...(browserBinding ? { browserBinding } : {}) };
}
