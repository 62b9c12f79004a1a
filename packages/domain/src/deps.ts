import type { DurationEstimate } from "./model/duration-estimate.ts";
import type { Metadata } from "./model/metadata.ts";
import type { ProviderTokens } from "./model/provider-profile.ts";
import type { Session } from "./model/session.ts";
import type { User } from "./model/user.ts";
import type { AuthPolicy } from "./policy.ts";
import type { Ports } from "./ports/index.ts";

export type Deps = Ports & {
  readonly policy: AuthPolicy;
  /**
   * How long each operation takes when it does its real work, so that an answer which must not reveal whether
   * an address exists (a duplicate signup, a recovery for nobody) can take as long (see timing.ts).
   */
  readonly durations: (operation: string) => DurationEstimate;
};

/** What the transport knows about the caller, recorded on sessions. */
export interface RequestContext {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

/**
 * How the link of a mail is asked for: where it should lead (candidates in the caller's order of preference; the
 * first one the redirect rule allows wins) and the PKCE challenge that ties it to the client that asked.
 */
export interface LinkRequest {
  readonly redirectTo?: readonly (string | undefined)[];
  readonly codeChallenge?: string | undefined;
  readonly codeChallengeMethod?: string | undefined;
}

/** A signed-in session, as the token endpoints hand it out. */
export interface SessionGrant {
  readonly accessToken: string;
  readonly tokenType: "bearer";
  readonly expiresIn: number;
  /** Unix seconds; the access token's `exp`. */
  readonly expiresAt: number;
  readonly refreshToken: string;
  readonly user: User;
  readonly session: Session;
  /** The provider's tokens, after an OAuth sign-in (`provider_token`, `provider_refresh_token`). */
  readonly providerTokens?: ProviderTokens;
  /** Set when a password sign-in succeeded with a password the current policy would refuse. */
  readonly weakPassword?: { readonly message: string; readonly reasons: readonly string[] };
}

/** The caller of an authenticated request. */
export interface Principal {
  readonly user: User;
  /** Null for tokens without a session (service keys carrying a `sub`). */
  readonly session: Session | null;
  readonly claims: Metadata;
}

/** Who calls the admin API: a role among JWT_ADMIN_ROLES, and a user when the token names one. */
export interface AdminPrincipal {
  readonly role: string;
  /** The token's `sub`; Supabase's service_role key has none. */
  readonly userId: string | null;
  readonly claims: Metadata;
}
