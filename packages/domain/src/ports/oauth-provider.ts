import type { ProviderProfile, ProviderTokens } from "../model/provider-profile.ts";

/**
 * One external sign-in provider (GitHub, Google, ...): it knows the provider's endpoints, how to authenticate to
 * it and how to read its answers as GoTrue's claims. Who is signed in, linked or created is the domain's business
 * (use-cases/oauth), never the provider's.
 */
export interface OAuthProvider {
  /** The canonical name: `github`, `linkedin` (also reached as `linkedin_oidc`), ... */
  readonly name: string;
  /** Whether `scopes=` of /authorize is added to the default scopes (some providers take only their own). */
  readonly takesScopes: boolean;
  /** EXTERNAL_<P>_EMAIL_OPTIONAL: a sign-in may go on when the provider reports no email. */
  readonly emailOptional: boolean;
  /**
   * Where the browser goes to sign in at the provider, carrying `state`. May call the provider first (Twitter's
   * OAuth 1.0a request token). Throws OAuthProviderFailure when the provider cannot be reached or refuses.
   */
  authorize(request: AuthorizationRequest): Promise<AuthorizationStart>;
  /**
   * The sign-in the provider's callback reports: exchanges its code (or verifier) for tokens, then reads who
   * signed in. Throws OAuthProviderFailure, naming the stage that failed; never with the provider's own words in
   * the message (they go to the cause, which is logged).
   */
  complete(callback: OAuthCallback): Promise<ProviderSignIn>;
  /** For POST /token?grant_type=id_token; absent for providers that issue no id_token to verify. */
  readonly idTokens?: IdTokenVerifier;
}

export interface AuthorizationRequest {
  /** The flow's id, which the provider hands back to /callback. */
  readonly state: string;
  /** Added to the provider's default scopes when it takes scopes. */
  readonly scopes: readonly string[];
  /** Further query parameters for the provider, in the client's order; the reserved ones are already removed. */
  readonly params: readonly (readonly [string, string])[];
}

export interface AuthorizationStart {
  readonly url: string;
  /**
   * What the exchange will need and only this server may know (a PKCE verifier towards the provider, an OAuth
   * 1.0a request-token secret); kept sealed with the flow until the callback.
   */
  readonly secret?: string;
}

export interface OAuthCallback {
  /** The callback's parameters: the query of a GET, the form of a POST (Apple's form_post). */
  readonly params: Readonly<Record<string, string>>;
  /** What `authorize` asked to keep, if anything. */
  readonly secret: string | null;
}

export interface ProviderSignIn {
  readonly tokens: ProviderTokens;
  readonly profile: ProviderProfile;
}

/** Verifies id_tokens the provider issued to the app directly (signInWithIdToken). */
export interface IdTokenVerifier {
  /**
   * The profile in a valid id_token: signature against the provider's keys, issuer, expiry, an audience among the
   * configured client ids, `at_hash` when an access token is given. The nonce is the caller's to compare
   * (`nonce` of the result). Throws OAuthProviderFailure stage `id_token` when the token is not valid.
   */
  verify(input: { readonly idToken: string; readonly accessToken?: string | undefined }): Promise<VerifiedIdToken>;
  /** Whether the nonce check is skipped (EXTERNAL_<P>_SKIP_NONCE_CHECK, and Facebook's Limited Login). */
  readonly skipNonceCheck: boolean;
}

export interface VerifiedIdToken {
  readonly profile: ProviderProfile;
  /** The token's `nonce` claim, if it has one. */
  readonly nonce: string | undefined;
  /** Its `exp`: until then it is remembered, so that it signs in once. */
  readonly expiresAt: Date;
}

/** Where talking to a provider went wrong. */
export type OAuthProviderStage = "authorize" | "exchange" | "profile" | "id_token";

/**
 * A provider could not be reached, refused, or answered what cannot be read. `message` is safe to log and to
 * show; the provider's own words are in `cause` and the log only.
 */
export class OAuthProviderFailure extends Error {
  override readonly name = "OAuthProviderFailure";
  constructor(
    readonly provider: string,
    readonly stage: OAuthProviderStage,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider}: ${message}`, options);
  }
}
