import type { CodeChallengeMethod } from "./one-time-token.ts";
import type { ProviderProfile } from "./provider-profile.ts";
import type { AuthMethod } from "./session.ts";

/**
 * A PKCE authorization waiting to be exchanged: created when a PKCE link is followed, exchanged once for a session
 * by whoever holds the code verifier.
 */
export interface FlowState {
  readonly id: string;
  /** Handed to the browser in the redirect; stored as a digest, like every other token. */
  readonly authCodeHash: string;
  readonly userId: string;
  readonly codeChallenge: string;
  readonly codeChallengeMethod: CodeChallengeMethod;
  /** Becomes the session's amr. */
  readonly authenticationMethod: AuthMethod;
  /** The provider of an OAuth sign-in, with the tokens it issued (sealed), for the exchange's answer. */
  readonly provider: ProviderOfFlow | null;
  /**
   * A linking flow's identity, linked to `userId` only when the code is exchanged, by whoever holds the verifier of
   * the user who asked for the link (GET /user/identities/authorize): not by whoever's browser came back from the
   * provider.
   */
  readonly pendingLink: PendingLink | null;
  /** Counts towards the lifetime: the link being followed, or /authorize for an OAuth sign-in. */
  readonly createdAt: Date;
}

/** How long a code may wait to be exchanged: GoTrue's 5 minutes, counted from the link being followed. */
export const FLOW_STATE_LIFETIME_SECONDS = 300;

/** Who signed in at the provider, to be linked at the exchange. */
export interface PendingLink {
  readonly provider: string;
  readonly profile: ProviderProfile;
}

/** What an OAuth sign-in's code carries to its exchange. */
interface ProviderOfFlow {
  readonly name: string;
  readonly sealedAccessToken: string;
  readonly sealedRefreshToken: string | null;
}
