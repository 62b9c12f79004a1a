import { AuthError } from "../errors.ts";
import type { Metadata } from "./metadata.ts";
import type { Aal, Session } from "./session.ts";
import type { User } from "./user.ts";
import { isUuid } from "./uuid.ts";

export interface AccessTokenPolicy {
  /** JWT_EXP, seconds. */
  readonly expSeconds: number;
  /** JWT_ISSUER; API_EXTERNAL_URL unless set. */
  readonly issuer: string;
}

/** The claims GoTrue puts in an access token; names are the JWT's, since other systems (RLS policies) read them. */
export type AccessTokenClaims = {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string;
  readonly exp: number;
  readonly iat: number;
  readonly email: string;
  readonly phone: string;
  readonly app_metadata: Metadata;
  readonly user_metadata: Metadata;
  readonly role: string;
  readonly aal: Aal;
  readonly amr: readonly { readonly method: string; readonly timestamp: number; readonly provider?: string }[];
  readonly session_id: string;
  readonly is_anonymous: boolean;
  /** A session of a third-party client (the OAuth server): that client, and the scopes granted to it. */
  readonly client_id?: string;
  readonly scope?: string;
};

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function buildAccessTokenClaims(
  user: User,
  session: Session,
  now: Date,
  policy: AccessTokenPolicy,
): AccessTokenClaims {
  const iat = seconds(now);
  return {
    iss: policy.issuer,
    sub: user.id,
    aud: user.aud,
    exp: iat + policy.expSeconds,
    iat,
    email: user.email ?? "",
    phone: user.phone ?? "",
    app_metadata: user.appMetadata,
    user_metadata: user.userMetadata,
    role: user.role,
    aal: session.aal,
    amr: session.amr.map((entry) => ({
      method: entry.method,
      timestamp: seconds(entry.at),
      ...(entry.method === "sso/saml" ? ssoProviderOf(user) : {}),
    })),
    session_id: session.id,
    is_anonymous: user.isAnonymous,
    ...(session.oauthClientId === null ? {} : { client_id: session.oauthClientId, scope: session.scopes ?? "" }),
  };
}

/**
 * An SSO sign-in's provider, as GoTrue names it in the amr entry: the id of the one SSO identity an SSO user has
 * (such users are never linked to anything else).
 */
function ssoProviderOf(user: User): { provider?: string } {
  const [only] = user.identities;
  if (user.identities.length !== 1 || !only?.provider.startsWith("sso:")) return {};
  return { provider: only.provider.slice("sso:".length) };
}

/** Who a verified access token speaks for. */
export interface TokenSubject {
  readonly userId: string;
  /** Null for tokens minted without a session (service keys). */
  readonly sessionId: string | null;
  readonly role: string;
}

/** Reads the subject of a token whose signature and expiry were already verified; GoTrue's claim checks and wording. */
export function readTokenSubject(claims: Readonly<Record<string, unknown>>): TokenSubject {
  const sub = claims["sub"];
  if (typeof sub !== "string" || sub === "") throw new AuthError("bad_jwt", "invalid claim: missing sub claim");
  if (!isUuid(sub)) throw new AuthError("bad_jwt", "invalid claim: sub claim must be a UUID");
  const sessionId = claims["session_id"];
  if (sessionId !== undefined && sessionId !== null && sessionId !== "" && !isUuid(sessionId)) {
    throw new AuthError("bad_jwt", "invalid claim: session_id claim must be a UUID");
  }
  const role = claims["role"];
  return {
    userId: sub,
    sessionId: typeof sessionId === "string" && sessionId !== "" ? sessionId : null,
    role: typeof role === "string" ? role : "",
  };
}

/** How far in the future a token's `iat` may lie: clocks of instances that sign and verify may differ this much. */
export const ISSUED_AT_LEEWAY_SECONDS = 30;

/** What a token is presented for: a user's route (`/user`, ...), or the admin API. */
export type TokenUse = "user" | "admin";

/**
 * The time rules of a verified token (the signer has checked its signature, and its `exp` if it has one):
 * - a token that stands for a session must expire. On a user's route that is any token naming a user (`sub`). On
 *   the admin API, where GoTrue never loads the `sub` user, only one naming a session (`session_id`): an admin key
 *   with a `sub` and no `exp`, as Supabase's own `supabase_admin` key is, passes there. An API key (a `role`, no
 *   `sub`), as operators mint anon and service-role keys, may not expire, as GoTrue allows (docs/compatibility.md,
 *   "Tokens and sessions");
 * - a token issued in the future (beyond the leeway) is refused, as GoTrue's JWT library refuses it: no instance
 *   of ours issues one, so it was made with the key for later use, or by a clock gone wrong.
 */
export function assertTokenTimes(claims: Readonly<Record<string, unknown>>, now: Date, use: TokenUse): void {
  const standsForSession = use === "admin" ? isSet(claims["session_id"]) : claims["sub"] !== undefined;
  if (standsForSession && typeof claims["exp"] !== "number") {
    throw new AuthError("bad_jwt", "invalid JWT: a token for a user must have an exp claim");
  }
  const iat = claims["iat"];
  if (typeof iat === "number" && iat > seconds(now) + ISSUED_AT_LEEWAY_SECONDS) {
    throw new AuthError("bad_jwt", "invalid JWT: token used before issued");
  }
}

const isSet = (claim: unknown) => claim !== undefined && claim !== null && claim !== "";
