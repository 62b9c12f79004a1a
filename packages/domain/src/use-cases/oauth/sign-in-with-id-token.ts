import type { Deps, Principal, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { CUSTOM_PROVIDER_PREFIX } from "../../model/custom-provider.ts";
import { nonceMatches } from "../../model/nonce.ts";
import { canonicalProvider, isKnownProvider } from "../../model/oauth-providers.ts";
import type { User } from "../../model/user.ts";
import type { OAuthProvider } from "../../ports/oauth-provider.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { afterUserCreated } from "../../services/hooks/user-created.ts";
import { linkIdentityToUser } from "../../services/identities/link-identity.ts";
import { onceMoreIfRaced } from "../../services/identities/once-more-if-raced.ts";
import { needsVerification } from "../../services/identities/provider-sign-in.ts";
import { grantSignIn, openSession } from "../../services/sessions.ts";
import { idTokenDigest } from "../../services/tokens/digests.ts";
import { providerFailed } from "./provider-failure.ts";
import { signInWithProviderProfile } from "./sign-in-with-profile.ts";
import { requireLinkingAllowed } from "./start-sign-in.ts";

export interface SignInWithIdTokenInput {
  readonly provider: string | undefined;
  readonly idToken: string | undefined;
  /** When given, the token's `at_hash` must match it. */
  readonly accessToken?: string | undefined;
  /** The raw nonce, whose SHA-256 the token carries. */
  readonly nonce?: string | undefined;
  /** link_identity: the identity joins this signed-in user instead of signing in. */
  readonly linkingTarget?: Principal | undefined;
  readonly context: RequestContext;
}

const invalid = (message: string) => new AuthError("invalid_request", message);

/** The provider whose id_tokens are taken under `name`, or GoTrue's refusal. */
async function idTokenProvider(
  deps: Deps,
  name: string,
): Promise<OAuthProvider & { idTokens: NonNullable<OAuthProvider["idTokens"]> }> {
  const provider = name.startsWith(CUSTOM_PROVIDER_PREFIX)
    ? await customIdTokenProvider(deps, name)
    : deps.oauthProviders.get(canonicalProvider(deps.oauthCatalog, name));
  if (!provider) {
    if (!isKnownProvider(deps.oauthCatalog, name)) throw invalid(`Custom OIDC provider "${name}" not allowed`);
    throw new AuthError("provider_disabled", `Provider (issuer "${name}") is not enabled`);
  }
  if (!provider.idTokens) throw invalid(`Custom OIDC provider "${provider.name}" not allowed`);
  return provider as OAuthProvider & { idTokens: NonNullable<OAuthProvider["idTokens"]> };
}

/** An OIDC provider an admin added, for its id_tokens: GoTrue's checks and messages, in its order. */
async function customIdTokenProvider(deps: Deps, identifier: string): Promise<OAuthProvider> {
  const refused = (message: string) => new AuthError("validation_failed", message);
  if (!deps.policy.customProviders.enabled || deps.customProviders === null) {
    throw refused("Custom OAuth providers are disabled");
  }
  const stored = await deps.stores.customProviders.findByIdentifier(identifier);
  if (stored === null) throw refused(`Custom provider "${identifier}" not found`);
  if (!stored.enabled) throw new AuthError("provider_disabled", `Custom provider "${identifier}" is disabled`);
  if (stored.providerType !== "oidc") throw refused(`Provider "${identifier}" is not an OIDC provider`);
  return deps.customProviders.provider(stored, deps.secrets.open(stored.sealedClientSecret));
}

/**
 * POST /token?grant_type=id_token (signInWithIdToken): an id_token the app got from the provider itself (a
 * native Google or Apple sign-in), verified against the provider's keys, then the same rules as a /callback.
 */
export async function signInWithIdToken(deps: Deps, input: SignInWithIdTokenInput): Promise<SessionGrant> {
  // Linking by id_token is manual linking, refused as /user/identities/authorize is.
  if (input.linkingTarget) requireLinkingAllowed(deps, input.linkingTarget);
  await limitPerClient(deps, "token", input.context);
  if (!input.idToken) throw invalid("id_token required");
  if (!input.provider) throw invalid("provider or client_id and issuer required");
  const provider = await idTokenProvider(deps, input.provider);
  const verified = await provider.idTokens
    .verify({ idToken: input.idToken, accessToken: input.accessToken || undefined })
    .catch((error: unknown) => {
      throw providerFailed(error, "");
    });
  if (!provider.idTokens.skipNonceCheck) {
    const posted = input.nonce || undefined;
    if ((posted === undefined) !== (verified.nonce === undefined)) {
      throw invalid("Passed nonce and nonce in id_token should either both exist or not.");
    }
    if (posted !== undefined && !nonceMatches(posted, verified.nonce!, deps.secrets.sha256, deps.secrets.equal)) {
      throw invalid("Nonces mismatch");
    }
  }

  const redirectTo = deps.policy.redirect.siteUrl;
  let created: User | undefined;
  const outcome = await onceMoreIfRaced(() =>
    deps.tx.run(async (stores) => {
      // security: a token signs in once; whoever intercepted or logged it gets nothing from it. Remembered in the
      // sign-in's transaction, so a sign-in that fails leaves it usable.
      const digest = idTokenDigest(deps.secrets, input.idToken!);
      if (!(await stores.usedIdTokens.remember(digest, verified.expiresAt, deps.clock.now()))) {
        throw invalid("id_token already used");
      }
      const result = input.linkingTarget
        ? await linkIdentityToUser(deps, stores, {
            userId: input.linkingTarget.user.id,
            provider: provider.name,
            profile: verified.profile,
            redirectTo,
            context: input.context,
          })
        : await signInWithProviderProfile(deps, stores, {
            provider: provider.name,
            profile: verified.profile,
            emailOptional: provider.emailOptional,
            redirectTo,
            context: input.context,
          });
      created = result.created;
      if (result.kind === "needs_verification") return result;
      return {
        ...result,
        ...(await openSession(deps, stores, result.user, { method: "oauth", context: input.context })),
      };
    }),
  );
  if (created !== undefined) {
    deps.events.record({ kind: "signed_up", provider: provider.name });
    await afterUserCreated(deps, { user: created, context: input.context });
  }
  if (outcome.kind === "needs_verification") {
    throw needsVerification(
      outcome.provider,
      true,
      input.linkingTarget ? "email_not_confirmed" : "provider_email_needs_verification",
    );
  }
  return grantSignIn(deps, outcome.user, outcome, provider.name);
}
