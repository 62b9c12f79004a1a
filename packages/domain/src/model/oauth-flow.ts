import type { CodeChallengeMethod } from "./one-time-token.ts";

/**
 * A sign-in at an external provider in progress: made by /authorize, its id is the `state` the provider hands
 * back to /callback, which takes it once (right, wrong or late, it is gone).
 */
export interface OAuthFlow {
  readonly id: string;
  /** The canonical provider name. */
  readonly provider: string;
  /** Where the browser goes at the end: `redirect_to` as the redirect rule allowed it, or SITE_URL. */
  readonly redirectTo: string;
  /** Set when the client started a PKCE flow: the callback then leads to a code, not a session. */
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: CodeChallengeMethod | null;
  /** The invited user whose `invite_token` came with /authorize. */
  readonly inviteUserId: string | null;
  /** The signed-in user the identity is to be linked to (GET /user/identities/authorize). */
  readonly linkingTargetId: string | null;
  /** What the provider's exchange needs and only this server may know (a PKCE verifier), sealed. */
  readonly sealedSecret: string | null;
  /**
   * The digest of the secret the browser that went to /authorize was given (a cookie): the callback must bring it
   * back. Null for a linking flow, which is bound to its user's code verifier instead (complete-sign-in.ts).
   */
  readonly browserBindingHash: string | null;
  readonly createdAt: Date;
}

/**
 * How long a flow may take from /authorize to the code's exchange: GoTrue's FLOW_STATE_EXPIRY_DURATION default
 * (and minimum), 5 minutes.
 */
export const OAUTH_FLOW_LIFETIME_SECONDS = 300;

/**
 * Parameters of /authorize that are ours or the protocol's, never passed on to the provider: a client could
 * otherwise set the provider's client id, redirect or state. GoTrue's list, plus what only we read.
 */
export const RESERVED_AUTHORIZE_PARAMS: ReadonlySet<string> = new Set([
  "provider",
  "scopes",
  // Our `scopes` is how a client asks for scopes; a raw `scope` would replace the provider's defaults.
  "scope",
  "client_id",
  "client_secret",
  "redirect_uri",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "code_verifier",
  "redirect_to",
  "invite_token",
  "skip_http_redirect",
]);
