import type { ProviderEmail, ProviderProfile, ProviderTokens } from "../model/provider-profile.ts";
import {
  type AuthorizationRequest,
  type AuthorizationStart,
  type IdTokenVerifier,
  type OAuthCallback,
  type OAuthProvider,
  OAuthProviderFailure,
  type OAuthProviderStage,
  type ProviderSignIn,
  type VerifiedIdToken,
} from "../ports/oauth-provider.ts";

export interface FakeOAuthProviderOptions {
  /** Canonical name; `github` unless given. */
  readonly name?: string;
  readonly takesScopes?: boolean;
  readonly emailOptional?: boolean;
  /** Who signs in: a subject, its claims and its addresses. */
  readonly profile?: ProviderProfile;
  readonly tokens?: ProviderTokens;
  /** What `authorize` asks the server to keep until the callback. */
  readonly secret?: string;
  /** The stage at which talking to the provider fails. */
  readonly failAt?: OAuthProviderStage | null;
  /** Present: the provider verifies id_tokens, answering this profile (else `profile`) and nonce. */
  readonly idTokens?: {
    readonly profile?: ProviderProfile;
    readonly nonce?: string | undefined;
    readonly skipNonceCheck?: boolean;
  };
}

/** When the fake's id_tokens expire: after any test clock. */
const ID_TOKENS_EXPIRE = new Date("2100-01-01T00:00:00.000Z");

/** A provider profile as the fake reports it: GoTrue-like claims for `subject`, with the given addresses. */
export function fakeProfile(
  subject: string,
  emails: readonly ProviderEmail[],
  claims: Readonly<Record<string, unknown>> = {},
): ProviderProfile {
  return {
    subject,
    claims: { iss: "https://provider.example", sub: subject, provider_id: subject, ...claims },
    emails,
  };
}

/** One address, primary unless told otherwise. */
export function providerEmail(address: string, verified: boolean, primary = true): ProviderEmail {
  return { address, verified, primary };
}

/**
 * An OAuthProvider that talks to nobody: it answers the profile and tokens it was given (change them between
 * sign-ins to play another person), records what it was asked, and fails at a chosen stage.
 */
export class FakeOAuthProvider implements OAuthProvider {
  readonly name: string;
  readonly takesScopes: boolean;
  readonly emailOptional: boolean;
  readonly idTokens?: IdTokenVerifier;
  profile: ProviderProfile;
  tokens: ProviderTokens;
  secret: string | undefined;
  failAt: OAuthProviderStage | null;
  /** The id_token verifier's answer: its profile (null: `profile`) and nonce. */
  idTokenProfile: ProviderProfile | null;
  idTokenNonce: string | undefined;
  readonly authorizeRequests: AuthorizationRequest[] = [];
  readonly callbacks: OAuthCallback[] = [];
  readonly verifiedIdTokens: { idToken: string; accessToken: string | undefined }[] = [];

  constructor(options: FakeOAuthProviderOptions = {}) {
    this.name = options.name ?? "github";
    this.takesScopes = options.takesScopes ?? true;
    this.emailOptional = options.emailOptional ?? false;
    this.profile =
      options.profile ??
      fakeProfile("1001", [providerEmail("ada@example.com", true)], {
        full_name: "Ada Lovelace",
        user_name: "ada",
      });
    this.tokens = options.tokens ?? { accessToken: "provider-access-token", refreshToken: "provider-refresh-token" };
    this.secret = options.secret;
    this.failAt = options.failAt ?? null;
    this.idTokenProfile = options.idTokens?.profile ?? null;
    this.idTokenNonce = options.idTokens?.nonce;
    if (options.idTokens) {
      const skipNonceCheck = options.idTokens.skipNonceCheck ?? false;
      this.idTokens = {
        skipNonceCheck,
        verify: (input) => this.verifyIdToken(input),
      };
    }
  }

  /** The `state` of the latest authorize request: what the provider hands back to /callback. */
  get lastState(): string {
    const request = this.authorizeRequests.at(-1);
    if (!request) throw new Error(`${this.name}: no authorize request yet`);
    return request.state;
  }

  async authorize(request: AuthorizationRequest): Promise<AuthorizationStart> {
    this.authorizeRequests.push(request);
    this.failIfAt("authorize");
    const url = `https://${this.name}.example/authorize?state=${request.state}`;
    return this.secret === undefined ? { url } : { url, secret: this.secret };
  }

  async complete(callback: OAuthCallback): Promise<ProviderSignIn> {
    this.callbacks.push(callback);
    this.failIfAt("exchange");
    this.failIfAt("profile");
    return { tokens: this.tokens, profile: this.profile };
  }

  private async verifyIdToken(input: {
    readonly idToken: string;
    readonly accessToken?: string | undefined;
  }): Promise<VerifiedIdToken> {
    this.verifiedIdTokens.push({ idToken: input.idToken, accessToken: input.accessToken });
    this.failIfAt("id_token");
    return { profile: this.idTokenProfile ?? this.profile, nonce: this.idTokenNonce, expiresAt: ID_TOKENS_EXPIRE };
  }

  private failIfAt(stage: OAuthProviderStage): void {
    if (this.failAt === stage) {
      throw new OAuthProviderFailure(this.name, stage, `fake failure at ${stage}`, {
        cause: new Error("the provider's own words"),
      });
    }
  }
}
