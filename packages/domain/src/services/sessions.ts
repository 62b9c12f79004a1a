import type { Deps, RequestContext, SessionGrant } from "../deps.ts";
import { AuthError } from "../errors.ts";
import { buildAccessTokenClaims } from "../model/access-token-claims.ts";
import type { RefreshToken } from "../model/refresh-token.ts";
import type { AuthMethod, Session } from "../model/session.ts";
import type { User } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";
import { type AuditEvent, auditEntry } from "./audit.ts";
import { customizedClaims, type TokenIssuance } from "./hooks/custom-access-token.ts";
import { refreshTokenDigest } from "./tokens/digests.ts";

/** Refresh tokens carry 256 random bits. */
const REFRESH_TOKEN_BYTES = 32;

/** What an access token will carry, made in the transaction that wrote its session (accessClaims). */
export interface IssuedClaims {
  readonly claims: Readonly<Record<string, unknown>>;
  /** Unix seconds: the `exp` we gave it, which the grant reports whatever a hook made of the claim. */
  readonly expiresAt: number;
}

/** A session just opened, the plaintext of its first refresh token, for the client, and its access token's claims. */
export interface OpenedSession {
  readonly session: Session;
  readonly refreshToken: string;
  readonly claims: IssuedClaims;
}

/** A new session with the first token of its family, not yet stored. */
export interface NewSession {
  readonly session: Session;
  readonly firstToken: RefreshToken;
  /** The first token's plaintext, for the client: only its digest is stored. */
  readonly refreshToken: string;
}

/** How a session is opened: by which method, for which request, and the audit events written with it. */
interface SessionOpening {
  readonly method: AuthMethod;
  readonly context: RequestContext;
  readonly audit?: readonly AuditEvent[];
  /** A third-party client's session (the OAuth server): the client, and the scopes granted to it. */
  readonly oauth?: OAuthHolder;
  /** When the session must end whatever happens (a SAML IdP's SessionNotOnOrAfter); null or absent: never. */
  readonly notAfter?: Date | null;
}

/** The third-party client a session is held by, and what it may do. */
export interface OAuthHolder {
  readonly clientId: string;
  readonly scopes: string;
}

export function newSession(
  deps: Deps,
  user: User,
  {
    method,
    context,
    oauth,
    notAfter = null,
  }: {
    method: AuthMethod;
    context: RequestContext;
    oauth?: OAuthHolder | undefined;
    notAfter?: Date | null | undefined;
  },
): NewSession {
  // Every sign-in passes here: a deleted user, whatever path still led to it, gets no session.
  if (user.deletedAt !== null) throw new AuthError("user_not_found", "User not found");
  const now = deps.clock.now();
  const refreshToken = deps.random.token(REFRESH_TOKEN_BYTES);
  const tokenId = deps.random.uuid();
  const session: Session = {
    id: deps.random.uuid(),
    userId: user.id,
    aal: "aal1",
    amr: [{ method, at: now }],
    refreshTokenId: tokenId,
    previousRefreshTokenId: null,
    rotatedAt: null,
    userAgent: context.userAgent,
    ip: context.ip,
    notAfter,
    factorId: null,
    oauthClientId: oauth?.clientId ?? null,
    scopes: oauth?.scopes ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const firstToken: RefreshToken = {
    id: tokenId,
    sessionId: session.id,
    parentId: null,
    tokenHash: refreshTokenDigest(deps.secrets, refreshToken),
    createdAt: now,
  };
  return { session, firstToken, refreshToken };
}

/**
 * Starts a session with the first token of its family, inside the transaction that signs the user in; the audit
 * events that record the sign-in are written with it.
 */
export async function openSession(
  deps: Deps,
  stores: Stores,
  user: User,
  { method, context, audit = [], oauth, notAfter }: SessionOpening,
): Promise<OpenedSession> {
  const { session, firstToken, refreshToken } = newSession(deps, user, { method, context, oauth, notAfter });
  await stores.sessions.open(
    session,
    firstToken,
    audit.map((event) => auditEntry(deps, event)),
  );
  return { session, refreshToken, claims: await accessClaims(deps, stores, { user, session, method, context }) };
}

/** Why an access token is issued for a session: by which method (GoTrue's names), at whose request. */
interface Issuance {
  readonly user: User;
  readonly session: Session;
  readonly method: TokenIssuance;
  readonly context: RequestContext | null;
}

/**
 * The claims of an access token for `session`, made in the transaction that wrote the session (`stores`): with the
 * custom_access_token hook on, the hook's, so that its failure undoes the write (GoTrue's order).
 */
export async function accessClaims(deps: Deps, stores: Stores, issuance: Issuance): Promise<IssuedClaims> {
  const claims = buildAccessTokenClaims(issuance.user, issuance.session, deps.clock.now(), deps.policy.accessToken);
  const customized = await customizedClaims(deps, stores, { ...issuance, claims });
  return { claims: customized, expiresAt: claims.exp };
}

/**
 * Runs a write that opens or moves a session without a transaction of its own (one statement), unless the
 * custom_access_token hook is on: its claims are then made in a transaction with the write (accessClaims).
 */
export function inSessionWrite<T>(deps: Deps, write: (stores: Stores) => Promise<T>): Promise<T> {
  return deps.hooks.custom_access_token === undefined ? write(deps.stores) : deps.tx.run(write);
}

/**
 * The grant of a session just opened (and committed), counted as a sign-in by its method; `provider` names the
 * OAuth provider of an `oauth` one.
 */
export async function grantSignIn(
  deps: Deps,
  user: User,
  opened: OpenedSession,
  provider?: string,
): Promise<SessionGrant> {
  const { session } = opened;
  const grant = await grantSession(deps, user, opened);
  const method = session.amr[0]?.method;
  if (method !== undefined) deps.events.record({ kind: "signed_in", method, ...(provider ? { provider } : {}) });
  return grant;
}

/** Signs the access token for a session with the claims made for it (accessClaims) and assembles the grant. */
export async function grantSession(deps: Deps, user: User, opened: OpenedSession): Promise<SessionGrant> {
  const { session, refreshToken, claims } = opened;
  return {
    accessToken: await deps.signer.sign(claims.claims),
    tokenType: "bearer",
    expiresIn: deps.policy.accessToken.expSeconds,
    expiresAt: claims.expiresAt,
    refreshToken,
    user,
    session,
  };
}
