import type { AuditAction, AuditEntry } from "../model/audit.ts";
import type { CustomProvider, CustomProviderType } from "../model/custom-provider.ts";
import type { Factor, FactorType, MfaChallenge } from "../model/factor.ts";
import type { FlowState } from "../model/flow-state.ts";
import type { Identity } from "../model/identity.ts";
import type { OAuthAuthorization, OAuthConsent } from "../model/oauth-authorization.ts";
import type { OAuthClient } from "../model/oauth-client.ts";
import type { OAuthFlow } from "../model/oauth-flow.ts";
import type { OneTimeToken, OneTimeTokenKind } from "../model/one-time-token.ts";
import type { OutboxEntry } from "../model/outbox.ts";
import type { RefreshToken } from "../model/refresh-token.ts";
import type { AuthMethod, Session } from "../model/session.ts";
import type { SamlRelayState, SsoProvider } from "../model/sso-provider.ts";
import type { User } from "../model/user.ts";
import type { Passkey, PasskeyCeremony, WebAuthnChallenge } from "../model/webauthn.ts";
import type { StaleRowStore } from "./stale-rows.ts";

/**
 * Users with their identities and factors. Emails are stored lower-cased and phones in E.164, so lookups are exact.
 * Methods never throw for "not found": they return null. SSO users (`isSsoUser`) hold no address: lookups by email
 * or phone never find them, and their emails conflict with no one's (GoTrue's partial unique index); a phone stays
 * unique among all users, as in GoTrue.
 */
export interface UserStore {
  /**
   * Inserts the user and its identities. Throws AuthError `email_exists` or `phone_exists` when another user
   * already holds the address (including when a concurrent insert won the race).
   */
  insert(user: User): Promise<void>;
  /** Writes every column of the user row (not its identities). Same conflicts as insert. */
  update(user: User): Promise<void>;
  /** With `forUpdate`, locks the user row until the transaction ends. */
  findById(id: string, options?: { forUpdate?: boolean }): Promise<User | null>;
  findByEmail(email: string): Promise<User | null>;
  findByPhone(phone: string): Promise<User | null>;
  /**
   * The user and one of its sessions in a single round trip: what every authenticated request needs.
   * `session` is null when the user exists but the session does not (or belongs to someone else).
   */
  findWithSession(userId: string, sessionId: string): Promise<{ user: User; session: Session | null } | null>;
  /** One page of the users the query matches, in its order, and how many it matches in all. */
  list(query: UserListQuery): Promise<{ users: User[]; total: number }>;
  /**
   * Deletes the user; its identities, sessions, refresh tokens, one-time tokens and PKCE flows go with it (audit
   * entries stay). Returns whether there was such a user.
   */
  delete(id: string): Promise<boolean>;
}

/** What the admin user list asks for. Without `email` or `phone` it pages through every user. */
export interface UserListQuery {
  /** Counts from 1. */
  readonly page: number;
  readonly perPage: number;
  /** By `createdAt`, ties broken by id in the same direction. */
  readonly order: "asc" | "desc";
  /** Only users of this audience (GoTrue lists one audience at a time). */
  readonly aud?: string | undefined;
  /**
   * Case-insensitive substring of the email or of `user_metadata.full_name` (GoTrue's `filter`). Matched as
   * text: `%` and `_` in it are not wildcards.
   */
  readonly filter?: string | undefined;
  /** Exactly this (lower-cased) email: answered by its unique index, however many users there are. */
  readonly email?: string | undefined;
  /** Exactly this E.164 phone: answered by its unique index. */
  readonly phone?: string | undefined;
}

export interface IdentityStore {
  /**
   * Inserts the identity, or updates data and timestamps of the one with the same (provider, providerId). Throws
   * AuthError `identity_already_exists` when that one belongs to another user (a concurrent link won the race).
   */
  save(identity: Identity): Promise<void>;
  /** The identity of this subject at this provider. */
  find(provider: string, providerId: string): Promise<Identity | null>;
  /** Identities whose data carries one of these (lower-cased) emails, of any provider and user. */
  findByEmails(emails: readonly string[]): Promise<Identity[]>;
  /**
   * Removes one identity of the user; says whether there was one. A pending token that carried it carries none
   * (OneTimeToken.identityId).
   */
  delete(userId: string, identityId: string): Promise<boolean>;
  /** Removes every identity of the user, so no provider subject leads to it any more (and as `delete` does). */
  deleteAllOfUser(userId: string): Promise<void>;
}

export interface SessionStore {
  /**
   * Writes the mutable columns: refresh-token pointers, rotatedAt, aal, amr, factorId, ip, userAgent, updatedAt
   * (never oauthClientId or scopes, which a session keeps from its opening).
   */
  update(session: Session): Promise<void>;
  /** Inserts a session and the first refresh token of its family, and the audit entries that record it, as one write. */
  open(session: Session, firstToken: RefreshToken, audit?: readonly AuditEntry[]): Promise<void>;
  /**
   * A sign-in by password as one write: while the user is not deleted and its stored hash is still
   * `signIn.verifiedHash`, sets the user's `lastSignInAt` (and the hash to `signIn.rehash` when given), appends the
   * audit entries and opens the session as `open` does. Otherwise it writes nothing and returns false: a password
   * changed since it was verified is never undone, and neither the old one nor a deleted account opens a session.
   */
  openWithPassword(
    signIn: PasswordSignIn,
    session: Session,
    firstToken: RefreshToken,
    audit: readonly AuditEntry[],
  ): Promise<boolean>;
  /**
   * A signup that signs in at once, as one write: inserts the user with its identities (as UserStore.insert does,
   * with the same conflicts) and opens its first session with the audit entries (as `open` does). A conflict or any
   * other failure writes none of them.
   */
  openForNewUser(user: User, session: Session, firstToken: RefreshToken, audit: readonly AuditEntry[]): Promise<void>;
  /**
   * Inserts the child token of a rotation and writes the session's token pointers, rotatedAt, ip, userAgent and
   * updatedAt (never its aal, amr or factorId: a rotation decided on a read taken without a lock must not undo a
   * change of level that landed after the read), with the audit entries that record it, as one write. Only while the stored session still points at the child's parent and
   * still has `session.notAfter`: otherwise, as when the session is gone, it writes nothing and returns false, so
   * that a rotation decided on a read taken without a lock never overwrites a rotation, an end or a sign-out that
   * landed after that read.
   */
  rotate(session: Session, child: RefreshToken, audit?: readonly AuditEntry[]): Promise<boolean>;
  /**
   * Deletes the user's sessions (and with them their refresh tokens), except the one named in `except`; with
   * `onlyAal1`, only those at aal1.
   */
  deleteAllOfUser(userId: string, options?: { except?: string; onlyAal1?: boolean }): Promise<void>;
  /**
   * The user's sessions that the factor took to aal2 go back to aal1: `factorId` null, `method`'s entry gone from
   * their amr, `updatedAt` set to `at`.
   */
  downgradeFactor(userId: string, factorId: string, method: AuthMethod, at: Date): Promise<void>;
  /** Deletes one session of the user; a session of another user is left alone. */
  deleteOne(userId: string, sessionId: string): Promise<void>;
  /** Deletes the user's sessions held by a third-party client (and their refresh tokens). */
  deleteOfClient(userId: string, oauthClientId: string): Promise<void>;
  /** Ends the user's sessions at `at` (their `notAfter`), unless they already end sooner. */
  endAllOfUser(userId: string, at: Date): Promise<void>;
  /** Every session of the user, ended or not, in no particular order. */
  listOfUser(userId: string): Promise<Session[]>;
}

/** What a sign-in by password records on the user. */
export interface PasswordSignIn {
  readonly at: Date;
  /** The stored hash the password was verified against. */
  readonly verifiedHash: string;
  /** A hash with current parameters, to replace the verified one. */
  readonly rehash?: string | undefined;
}

export interface RefreshTokenStore {
  /**
   * Finds the token with this digest and locks its session row until the transaction ends, so that refreshes of
   * one family run one at a time. Returns the session and its user as they are once the lock is held.
   * Null when no token has this digest (or its session is gone).
   */
  lockForRefresh(tokenHash: string): Promise<RefreshTokenFound | null>;
  /** As lockForRefresh, without the lock: the committed state when it reads, which may change before any write. */
  findForRefresh(tokenHash: string): Promise<RefreshTokenFound | null>;
}

/** A refresh token with its session and the session's user. */
export interface RefreshTokenFound {
  readonly token: RefreshToken;
  readonly session: Session;
  readonly user: User;
}

export interface OneTimeTokenStore {
  /** Stores the token, replacing the user's pending token of the same kind. */
  replace(token: OneTimeToken): Promise<void>;
  findByUser(userId: string, kind: OneTimeTokenKind): Promise<OneTimeToken | null>;
  /** The token whose link carries the token with this digest. */
  findByLinkTokenHash(linkTokenHash: string): Promise<OneTimeToken | null>;
  /** The pending tokens of these kinds sent to this address (an address may be pending for several users). */
  findByAddress(relatesTo: string, kinds: readonly OneTimeTokenKind[]): Promise<OneTimeToken[]>;
  /**
   * Spends one of the token's code attempts, if fewer than `max` were spent, and says whether it did (false when
   * the token is gone). One atomic step, taken before the code is compared: however many attempts arrive at once,
   * no more than `max` are ever compared.
   */
  takeCodeAttempt(id: string, max: number): Promise<boolean>;
  /** Removes one token and says whether it was still there: of two concurrent uses, only one removes it. */
  delete(id: string): Promise<boolean>;
  /** Removes every pending token of the user: after a password change, nothing issued before it stays usable. */
  deleteAllOfUser(userId: string): Promise<void>;
}

export interface OAuthFlowStore {
  insert(flow: OAuthFlow): Promise<void>;
  /** Removes and returns the flow: a state is taken at most once, whatever happens next. */
  take(id: string): Promise<OAuthFlow | null>;
}

export interface FlowStateStore {
  insert(flow: FlowState): Promise<void>;
  /** Removes and returns the flow with this code digest: a code is exchanged at most once, right or wrong. */
  consume(authCodeHash: string): Promise<FlowState | null>;
}

/** Security events; written in the transaction of the change they record, so both commit or neither. */
export interface AuditLogStore {
  append(entry: AuditEntry): Promise<void>;
  /** One page of the entries the query matches, newest first (in insertion order within one instant), and how many it matches in all. */
  list(query: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }>;
}

export interface AuditQuery {
  /** Counts from 1. */
  readonly page: number;
  readonly perPage: number;
  /** Case-insensitive substring of `actorUsername` or `actorName`; matched as text (`%` and `_` are literal). */
  readonly author?: string | undefined;
  /** Only entries with one of these actions (an empty list matches none). */
  readonly actions?: readonly AuditAction[] | undefined;
}

/** A message as one claim holds it. */
export interface OutboxClaim {
  readonly id: string;
  readonly claim: string;
}

/**
 * Messages to deliver. Several instances deliver from the same outbox: a claim gives one worker a message for a
 * short while (a lease, renewed while it sends), so no other sends it meanwhile, and a worker that dies mid-send
 * only delays it until the lease runs out.
 */
export interface OutboxStore {
  /** Queues the message in the caller's transaction; workers are woken once that commits. */
  enqueue(entry: OutboxEntry): Promise<void>;
  /**
   * Claims up to `limit` messages due by `now` and not leased to another worker, leasing them until `leaseUntil`
   * under `claim` (unique per call). Never waits on messages another worker is claiming at the same moment: it
   * skips them.
   */
  claimDue(options: { now: Date; limit: number; leaseUntil: Date; claim: string }): Promise<OutboxEntry[]>;
  /**
   * Extends to `leaseUntil` the leases in `held` that are still held under their claim and have not run out by
   * `now`; returns the ids it extended. A lease that ran out stays run out, even if no one has claimed it since:
   * another worker may be claiming it at that moment.
   */
  renewLeases(options: { held: readonly OutboxClaim[]; now: Date; leaseUntil: Date }): Promise<string[]>;
  /**
   * Marks the message delivered and erases its sealed content, if it is still held under `claim`: a worker whose
   * lease ran out, and so may have been overtaken by another, changes nothing. Returns whether it wrote.
   */
  markDelivered(held: OutboxClaim, at: Date): Promise<boolean>;
  /**
   * Records a failed attempt, under the same condition; `nextAttemptAt` null gives up and erases the sealed
   * content. Returns whether it wrote.
   */
  markFailed(
    held: OutboxClaim,
    failure: { attempts: number; nextAttemptAt: Date | null; error: string },
  ): Promise<boolean>;
  /**
   * The messages still to deliver (due, waiting for a retry, or being sent), per channel that has any, with the
   * creation time of the oldest: what an operator watches the queue by.
   */
  pending(): Promise<readonly OutboxBacklog[]>;
}

export interface OutboxBacklog {
  readonly channel: OutboxEntry["channel"];
  readonly count: number;
  readonly oldestCreatedAt: Date;
}

/**
 * Second factors and their challenges. A factor's friendly name, trimmed and when not empty, is unique per user; a
 * phone number has at most one verified factor per user. Deleting a factor (or its user) deletes its challenges.
 */
export interface FactorStore {
  /**
   * Inserts a factor. Throws AuthError `mfa_factor_name_conflict` when the user has a factor of that friendly name,
   * and `mfa_verified_factor_exists` when a verified factor of the user has that phone number.
   */
  insert(factor: Factor): Promise<void>;
  /**
   * Writes the mutable columns: status, friendlyName, phone, lastTotpStep, webauthn, lastChallengedAt, updatedAt.
   * Throws AuthError `webauthn_credential_exists` when another WebAuthn factor has the credential id.
   */
  update(factor: Factor): Promise<void>;
  /** The user's factor; null when there is none of that id, or it is another user's. `forUpdate` locks it. */
  find(userId: string, factorId: string, options?: { forUpdate?: boolean }): Promise<Factor | null>;
  /** Deletes the user's factor and its challenges; returns whether there was one. */
  delete(userId: string, factorId: string): Promise<boolean>;
  /** Deletes every factor of the user, with their challenges. */
  deleteAllOfUser(userId: string): Promise<void>;
  /**
   * Deletes the user's unverified factors that match every condition given: of `type`; with `phone`; idle since
   * before `idleBefore` (their last challenge, else their creation); other than `except`.
   */
  deleteUnverified(
    userId: string,
    match: { type?: FactorType; phone?: string; idleBefore?: Date; except?: string },
  ): Promise<void>;
  insertChallenge(challenge: MfaChallenge): Promise<void>;
  /** The factor's challenge, locked until the transaction ends; null when the factor has none of that id. */
  lockChallenge(factorId: string, challengeId: string): Promise<MfaChallenge | null>;
  /** Records that the challenge was answered: it answers nothing again. */
  markChallengeVerified(challengeId: string, at: Date): Promise<void>;
  deleteChallenge(challengeId: string): Promise<void>;
}

/** Passkeys. A credential id is unique among them, as among WebAuthn factors. Deleting a user deletes its passkeys. */
export interface PasskeyStore {
  /** Throws AuthError `webauthn_credential_exists` when its credential id is registered already. */
  insert(passkey: Passkey): Promise<void>;
  /** The user's passkeys, oldest first. */
  listOfUser(userId: string): Promise<Passkey[]>;
  countOfUser(userId: string): Promise<number>;
  /** The user's passkey; null when there is none of that id, or it is another user's. */
  find(userId: string, passkeyId: string): Promise<Passkey | null>;
  /** The passkey of a credential id; `forUpdate` locks it until the transaction ends. */
  findByCredentialId(credentialId: string, options?: { forUpdate?: boolean }): Promise<Passkey | null>;
  /** Writes what a sign-in changed: signCount, backedUp, lastUsedAt, updatedAt. */
  recordUse(passkey: Passkey): Promise<void>;
  /** Writes friendlyName and updatedAt. */
  rename(passkey: Passkey): Promise<void>;
  /** Deletes the user's passkey; returns whether there was one. */
  delete(userId: string, passkeyId: string): Promise<boolean>;
}

/** Passkey ceremonies begun and not yet answered. */
export interface WebAuthnChallengeStore {
  /** Stores a challenge, and forgets challenges that expired before `now` as it goes. */
  insert(challenge: WebAuthnChallenge, now: Date): Promise<void>;
  /**
   * Deletes and returns the challenge of that id, ceremony and user (null: one bound to no user), expired or not; null
   * when there is none. Of two concurrent takes of one challenge, one gets it.
   */
  take(id: string, ceremony: PasskeyCeremony, userId: string | null): Promise<WebAuthnChallenge | null>;
}

/** The OAuth server's registered clients (GoTrue's `oauth_clients`); deleted ones are kept, and found by nothing. */
export interface OAuthClientStore {
  insert(client: OAuthClient): Promise<void>;
  /** The client of that id unless deleted; null too for an id that is no uuid. */
  find(clientId: string): Promise<OAuthClient | null>;
  /** Every client not deleted, newest first. */
  list(): Promise<OAuthClient[]>;
  /** Writes every field but the id, the type and createdAt (a deletion is a write of deletedAt). */
  update(client: OAuthClient): Promise<void>;
}

/** Authorization requests of third-party clients, until exchanged or expired. */
export interface OAuthAuthorizationStore {
  /** Stores a request, and forgets requests that expired before `now` as it goes. */
  insert(authorization: OAuthAuthorization, now: Date): Promise<void>;
  /** The request of that id, locked until the transaction ends; null when there is none. */
  lock(id: string): Promise<OAuthAuthorization | null>;
  /** Writes userId, status, codeDigest, sessionId and approvedAt. */
  update(authorization: OAuthAuthorization): Promise<void>;
  /** The request whose code has that digest, locked until the transaction ends; null when there is none. */
  lockByCode(codeDigest: string): Promise<OAuthAuthorization | null>;
}

/** What users allowed clients: one consent per user and client. */
export interface OAuthConsentStore {
  /** The user's consent to the client unless revoked. */
  findActive(userId: string, clientId: string): Promise<OAuthConsent | null>;
  /** The user's consents not revoked, oldest grant first. */
  listActive(userId: string): Promise<OAuthConsent[]>;
  /** Stores the user's consent to the client, replacing the one before (revoked or not). */
  save(consent: OAuthConsent): Promise<void>;
  /** Revokes the user's consent to the client at `at`; returns whether there was an active one. */
  revoke(userId: string, clientId: string, at: Date): Promise<boolean>;
}

/** SAML identity providers (SsoProvider), with their domains. */
export interface SsoProviderStore {
  /**
   * Stores a new provider with its domains. Throws AuthError `saml_idp_already_exists` when another provider has its
   * EntityID, `sso_domain_already_exists` when another holds one of its domains (without regard to case), and
   * `validation_failed` when another has its resource id; nothing is written then.
   */
  insert(provider: SsoProvider): Promise<void>;
  /** The provider of that id; null too for an id that is no uuid. */
  find(id: string): Promise<SsoProvider | null>;
  /** The provider with that resource id, compared exactly. */
  findByResourceId(resourceId: string): Promise<SsoProvider | null>;
  /** The provider holding that domain, compared without regard to case. */
  findByDomain(domain: string): Promise<SsoProvider | null>;
  /** The provider with that EntityID, compared exactly. */
  findByEntityId(entityId: string): Promise<SsoProvider | null>;
  /**
   * Every provider, oldest first; only those with that resource id (exactly), or whose resource id starts with
   * `resourceIdPrefix`, when given.
   */
  list(filter?: { readonly resourceId?: string; readonly resourceIdPrefix?: string }): Promise<SsoProvider[]>;
  /**
   * Writes every field but the id and createdAt, its domains replaced by those given; the same errors as insert.
   * False when there is no such provider.
   */
  update(provider: SsoProvider): Promise<boolean>;
  /** Deletes the provider and its domains; false when there was none. */
  delete(id: string): Promise<boolean>;
}

/** The providers admins added (/admin/custom-providers). */
export interface CustomProviderStore {
  /** Throws AuthError `conflict` when another provider has the identifier. */
  insert(provider: CustomProvider): Promise<void>;
  findByIdentifier(identifier: string): Promise<CustomProvider | null>;
  /** Every provider, newest first; only those of `type` when given. */
  list(filter?: { readonly type?: CustomProviderType }): Promise<CustomProvider[]>;
  count(): Promise<number>;
  /** Writes every field but the id, the identifier and createdAt; false when there is no such provider. */
  update(provider: CustomProvider): Promise<boolean>;
  /** False when there was none. */
  delete(identifier: string): Promise<boolean>;
}

/** SAML sign-ins sent to identity providers, waiting for their answers at the ACS. */
export interface SamlRelayStateStore {
  insert(state: SamlRelayState): Promise<void>;
  /** Removes and returns the relay state: one is taken at most once, whatever happens next. Null for a non-uuid id. */
  take(id: string): Promise<SamlRelayState | null>;
}

/** The id_tokens signed in with, by digest, each until it expires: one used twice is a replay. */
export interface UsedIdTokenStore {
  /**
   * Remembers `digest` until `expiresAt`; false when it is remembered already (used before, not yet expired). Of
   * two concurrent transactions remembering one digest, one gets true. Forgets the expired ones as it goes.
   */
  remember(digest: string, expiresAt: Date, now: Date): Promise<boolean>;
}

/** How a function of the database is called as a hook (HOOK_<NAME>_URI `pg-functions://postgres/<schema>/<name>`). */
export interface HookFunctionCall {
  readonly schema: string;
  readonly name: string;
  /** The payload, as JSON text: the function takes it as its one `jsonb` argument. */
  readonly payload: string;
  /** The most the call may run: its statement_timeout, unless the work's own deadline leaves less. */
  readonly timeoutMs: number;
}

/** What a hook function came to: its result (parsed JSON, null for NULL), or the error it raised or ran into. */
export type HookFunctionOutcome =
  | { readonly ok: true; readonly answer: unknown }
  | {
      readonly ok: false;
      /** SQLSTATE: `P0001` for a RAISE, `57014` when the timeout cancelled it, `PT403` for a status of its own. */
      readonly code: string;
      readonly message: string;
    };

/** Functions in the database called as hooks, in the caller's transaction or in one of their own. */
export interface HookFunctionStore {
  /**
   * Calls `schema.name(payload::jsonb)` and returns what it came to. What the function raises, and its timeout, come
   * back as an outcome, with what the function did undone and the caller's transaction still usable; a database
   * that cannot serve throws, as every store does.
   */
  call(call: HookFunctionCall): Promise<HookFunctionOutcome>;
}

export interface Stores {
  readonly users: UserStore;
  readonly factors: FactorStore;
  readonly passkeys: PasskeyStore;
  readonly webauthnChallenges: WebAuthnChallengeStore;
  readonly oauthClients: OAuthClientStore;
  readonly oauthAuthorizations: OAuthAuthorizationStore;
  readonly oauthConsents: OAuthConsentStore;
  readonly ssoProviders: SsoProviderStore;
  readonly samlRelayStates: SamlRelayStateStore;
  readonly customProviders: CustomProviderStore;
  readonly identities: IdentityStore;
  readonly sessions: SessionStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly oneTimeTokens: OneTimeTokenStore;
  readonly auditLog: AuditLogStore;
  readonly outbox: OutboxStore;
  readonly flowStates: FlowStateStore;
  readonly oauthFlows: OAuthFlowStore;
  readonly usedIdTokens: UsedIdTokenStore;
  readonly hookFunctions: HookFunctionStore;
  readonly staleRows: StaleRowStore;
}

/** Runs `work` in one transaction: it commits when `work` resolves and rolls back when it throws. */
export interface Transactor {
  run<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
}
