import {
  type AmrEntry,
  type AuthMethod,
  type Factor,
  type FactorSecrets,
  type Identity,
  type ImportedAccount,
  type ImportedSession,
  isUuid,
  normalizeEmail,
  normalizePhone,
  type Passkey,
  type RefreshToken,
  refreshTokenDigest,
  type Secrets,
  type User,
} from "@latchkey/domain";
import { importedTokenId, v2RefreshToken } from "./gotrue-refresh-tokens.ts";
import type { GotrueBatch, GotrueRow } from "./gotrue-source.ts";
import { mapPasskey, webauthnKeyOfFactor } from "./map-webauthn.ts";
import { dateOf, nonEmpty, objectOf } from "./row-values.ts";

/** What the mapping needs of this server: its keys for token digests and for TOTP secrets. */
export interface MapContext {
  readonly secrets: Secrets;
  /**
   * Seals TOTP secrets with this server's key; opens GoTrue's sealed ones (same aes-gcm-hkdf format) when given
   * GoTrue's SECURITY_DB_ENCRYPTION keys.
   */
  readonly factorSecrets: FactorSecrets;
  readonly now: Date;
}

/** What a batch leaves behind that has no place here, counted for the summary. */
export interface Dropped {
  /** Unused confirmation, recovery, email or phone change and reauthentication links and codes (GoTrue stores
   * their SHA-224 digests, which nothing can turn into ours): whoever waits for one asks again. */
  pendingTokens: number;
  /** Sessions ended or signed out (no refresh token left), which nobody can use. */
  endedSessions: number;
  /** Live sessions that cannot be carried over, with why (a refresh key sealed with a key not given). */
  sessions: string[];
  /**
   * Factors that cannot be used here, with why: unverified WebAuthn factors (no credential yet), verified ones whose
   * credential cannot be read, and TOTP factors whose secret cannot be opened.
   */
  factors: string[];
  /** Passkeys whose credential id or public key holds no bytes, with why. */
  passkeys: string[];
  /** Password hashes of a format this server cannot check: those users set a new one by recovery. */
  passwords: string[];
}

export type MappedBatch = {
  readonly accounts: ImportedAccount[];
  readonly skipped: { userId: string; reason: string }[];
  readonly dropped: Dropped;
  /** The accounts of users GoTrue soft-deleted, which arrive soft-deleted. */
  readonly softDeleted: string[];
};

/** GoTrue's users all carry the nil instance id; other instances' rows (of its multi-tenant past) are not its users. */
const NIL_INSTANCE = "00000000-0000-0000-0000-000000000000";

const PENDING_TOKEN_COLUMNS = [
  "confirmation_token",
  "recovery_token",
  "email_change_token_new",
  "email_change_token_current",
  "phone_change_token",
  "reauthentication_token",
];

/** GoTrue's amr methods that are ours too; others (token_refresh) are left out. */
const AMR_METHODS: ReadonlySet<string> = new Set<AuthMethod>([
  "password",
  "otp",
  "magiclink",
  "recovery",
  "invite",
  "email/signup",
  "email_change",
  "sms",
  "oauth",
  "anonymous",
  "totp",
  "mfa/phone",
  "mfa/webauthn",
  "passkey",
  "sso/saml",
  "web3",
]);

/** Hashes argon2 and bcrypt verify here (the password check upgrades them at the next sign-in). */
const KNOWN_PASSWORD_HASH = /^(\$2[abxy]?\$\d{2}\$|\$argon2(id|i|d)\$)/;

/** A batch of GoTrue rows as accounts; a user that cannot be brought is skipped with why, never failing the batch. */
export function mapBatch(batch: GotrueBatch, context: MapContext): MappedBatch {
  const dropped: Dropped = {
    pendingTokens: 0,
    endedSessions: 0,
    sessions: [],
    factors: [],
    passkeys: [],
    passwords: [],
  };
  const byUser = <T extends GotrueRow>(rows: readonly T[]) => groupBy(rows, (row) => String(row["user_id"]));
  const identities = byUser(batch.identities);
  const factors = byUser(batch.factors);
  const passkeys = byUser(batch.passkeys);
  const sessions = byUser(batch.sessions);
  const tokens = groupBy(batch.refreshTokens, (row) => String(row["session_id"]));
  const claims = groupBy(batch.amrClaims, (row) => String(row["session_id"]));
  const accounts: ImportedAccount[] = [];
  const skipped: { userId: string; reason: string }[] = [];
  const softDeleted: string[] = [];

  for (const row of batch.users) {
    const userId = String(row["id"]);
    try {
      const instance = nonEmpty(row["instance_id"]);
      if (instance !== null && instance !== NIL_INSTANCE) {
        throw new Skip(`of another instance (instance_id ${instance}): GoTrue serves only the nil instance's users`);
      }
      dropped.pendingTokens += PENDING_TOKEN_COLUMNS.filter((column) => nonEmpty(row[column]) !== null).length;
      const userFactors = (factors.get(userId) ?? []).flatMap((factor) => mapFactor(factor, context, dropped));
      const user = mapUser(row, identities.get(userId) ?? [], userFactors, dropped);
      const factorIds = new Set(userFactors.map((factor) => factor.id));
      // A deleted user signs in no more: GoTrue signed it out, and Latchkey's soft delete keeps no session either.
      const live = user.deletedAt === null ? (sessions.get(userId) ?? []) : [];
      dropped.endedSessions += (sessions.get(userId)?.length ?? 0) - live.length;
      const userSessions = live.flatMap((session) => {
        try {
          const mapped = mapSession(session, { tokens, claims }, factorIds, context);
          if (mapped === null) dropped.endedSessions += 1;
          return mapped === null ? [] : [mapped];
        } catch (error) {
          dropped.sessions.push(error instanceof Error ? error.message : String(error));
          return [];
        }
      });
      // A deleted user signs in no more (GoTrue's soft delete deletes its passkeys too).
      const userPasskeys = user.deletedAt === null ? passkeysOf(passkeys.get(userId) ?? [], dropped) : [];
      accounts.push({ user, passkeys: userPasskeys, sessions: userSessions });
      if (user.deletedAt !== null) softDeleted.push(userId);
    } catch (error) {
      // A Skip says why; anything else the row held that could not be read says so itself.
      skipped.push({ userId, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { accounts, skipped, dropped, softDeleted };
}

/** Why a user is not imported. */
class Skip extends Error {}

function mapUser(row: GotrueRow, identityRows: readonly GotrueRow[], factors: Factor[], dropped: Dropped): User {
  const id = String(row["id"]);
  const createdAt = dateOf(row["created_at"]) ?? new Date(0);
  const deletedAt = dateOf(row["deleted_at"]);
  const deleted = deletedAt !== null;
  let passwordHash = deleted ? null : nonEmpty(row["encrypted_password"]);
  if (passwordHash !== null && !KNOWN_PASSWORD_HASH.test(passwordHash)) {
    dropped.passwords.push(`${id}: a password hash of an unknown format`);
    passwordHash = null;
  }
  return {
    id,
    aud: nonEmpty(row["aud"]) ?? "authenticated",
    role: nonEmpty(row["role"]) ?? "authenticated",
    ...(deleted ? NO_ADDRESSES : addressesOf(row)),
    passwordHash,
    // Before GoTrue split them, confirmed_at was the address's confirmation.
    emailConfirmedAt:
      dateOf(row["email_confirmed_at"]) ??
      (nonEmpty(row["email"]) !== null && nonEmpty(row["phone"]) === null ? dateOf(row["confirmed_at"]) : null),
    phoneConfirmedAt: dateOf(row["phone_confirmed_at"]),
    invitedAt: dateOf(row["invited_at"]),
    confirmationSentAt: dateOf(row["confirmation_sent_at"]),
    recoverySentAt: dateOf(row["recovery_sent_at"]),
    emailChangeSentAt: dateOf(row["email_change_sent_at"]),
    // GoTrue records that one side of a change was confirmed, not which: both sides confirm again here.
    emailChangeConfirmedBy: null,
    phoneChangeSentAt: dateOf(row["phone_change_sent_at"]),
    reauthenticationSentAt: dateOf(row["reauthentication_sent_at"]),
    lastSignInAt: dateOf(row["last_sign_in_at"]),
    appMetadata: objectOf(row["raw_app_meta_data"]),
    userMetadata: objectOf(row["raw_user_meta_data"]),
    bannedUntil: dateOf(row["banned_until"]),
    isAnonymous: row["is_anonymous"] === true,
    // Its identity (`sso:<provider id>`) comes with it, even when its provider does not (GoTrue keeps the users of a
    // provider it deleted too): it signs in again once a provider of that id is here.
    isSsoUser: row["is_sso_user"] === true,
    createdAt,
    updatedAt: dateOf(row["updated_at"]) ?? createdAt,
    deletedAt,
    identities: deleted ? [] : identityRows.map((identity) => mapIdentity(identity, id)),
    factors,
  };
}

type Addresses = Pick<User, "email" | "phone" | "newEmail" | "newPhone">;

/**
 * A soft-deleted user's addresses: none, and no identity either, as Latchkey's own soft delete leaves a user, so
 * that it cannot sign in and its addresses are free for others. GoTrue's soft delete frees them too, putting
 * digests where they were, which are no addresses to bring (docs/compatibility.md, "Moving from Supabase Auth").
 */
const NO_ADDRESSES: Addresses = { email: null, phone: null, newEmail: null, newPhone: null };

function addressesOf(row: GotrueRow): Addresses {
  const email = nonEmpty(row["email"]);
  const phone = nonEmpty(row["phone"]);
  const newEmail = nonEmpty(row["email_change"]);
  const newPhone = nonEmpty(row["phone_change"]);
  return {
    email: email === null ? null : normalizeEmail(email.trim()),
    phone: phone === null ? null : phoneOf(phone, "phone"),
    newEmail: newEmail === null ? null : normalizeEmail(newEmail),
    newPhone: newPhone === null ? null : phoneOf(newPhone, "phone_change"),
  };
}

function mapIdentity(row: GotrueRow, userId: string): Identity {
  // Before GoTrue added provider_id, the id was the provider's id for the user, and no uuid.
  const providerId = nonEmpty(row["provider_id"]) ?? String(row["id"]);
  const provider = String(row["provider"]);
  const createdAt = dateOf(row["created_at"]) ?? new Date(0);
  return {
    id: isUuid(row["id"]) ? row["id"] : importedTokenId(`identity:${provider}:${providerId}`),
    userId,
    provider,
    providerId,
    identityData: objectOf(row["identity_data"]),
    lastSignInAt: dateOf(row["last_sign_in_at"]),
    createdAt,
    updatedAt: dateOf(row["updated_at"]) ?? createdAt,
  };
}

function passkeysOf(rows: readonly GotrueRow[], dropped: Dropped): Passkey[] {
  return rows.flatMap((row) => {
    const passkey = mapPasskey(row);
    if (passkey === null) dropped.passkeys.push(`${String(row["id"])}: its credential id or public key is empty`);
    return passkey === null ? [] : [passkey];
  });
}

/** What a factor brings besides its common fields: TOTP its sealed secret, WebAuthn its key. */
type FactorParts = Pick<Factor, "sealedSecret" | "webauthn">;

const NO_PARTS: FactorParts = { sealedSecret: null, webauthn: null };

function mapFactor(row: GotrueRow, context: MapContext, dropped: Dropped): Factor[] {
  const type = String(row["factor_type"]);
  if (type !== "totp" && type !== "phone" && type !== "webauthn") {
    dropped.factors.push(`${String(row["id"])}: a ${type} factor (not built in Latchkey)`);
    return [];
  }
  const parts = type === "totp" ? totpParts(row, context) : type === "webauthn" ? webauthnParts(row) : NO_PARTS;
  if (typeof parts === "string") {
    dropped.factors.push(`${String(row["id"])}: ${parts}`);
    return [];
  }
  const createdAt = dateOf(row["created_at"]) ?? new Date(0);
  const phone = type === "phone" ? nonEmpty(row["phone"]) : null;
  return [
    {
      id: String(row["id"]),
      userId: String(row["user_id"]),
      type,
      friendlyName: nonEmpty(row["friendly_name"]),
      status: row["status"] === "verified" ? "verified" : "unverified",
      ...parts,
      phone: phone === null ? null : phoneOf(phone, "a phone factor's number"),
      lastTotpStep: null,
      lastChallengedAt: dateOf(row["last_challenged_at"]),
      createdAt,
      updatedAt: dateOf(row["updated_at"]) ?? createdAt,
    },
  ];
}

/** A TOTP factor's secret sealed with this server's key; or why it cannot be. */
function totpParts(row: GotrueRow, context: MapContext): FactorParts | string {
  const id = String(row["id"]);
  const stored = nonEmpty(row["secret"]);
  if (stored === null) return "a TOTP factor without a secret";
  try {
    // GoTrue keeps it in clear unless SECURITY_DB_ENCRYPTION_ENCRYPT; sealed, it is a JSON object.
    const secret = stored.startsWith("{") ? context.factorSecrets.open(id, stored) : stored;
    return { sealedSecret: context.factorSecrets.seal(id, secret), webauthn: null };
  } catch {
    const keyId = keyIdOf(stored);
    return `its secret is sealed with key ${JSON.stringify(keyId)}, which SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS does not hold`;
  }
}

/**
 * A verified WebAuthn factor's key; or why it is left. An unverified one has no credential yet (GoTrue registers it
 * at the first verification, whose ceremony under way is not brought): its user enrolls it again.
 */
function webauthnParts(row: GotrueRow): FactorParts | string {
  if (row["status"] !== "verified") return "an unverified WebAuthn factor (no credential registered yet)";
  const webauthn = webauthnKeyOfFactor(row);
  if (webauthn === null) return "a WebAuthn factor whose credential (web_authn_credential) cannot be read";
  return { sealedSecret: null, webauthn };
}

/** The batch's refresh tokens and amr claims, by session id. */
interface BySession {
  readonly tokens: ReadonlyMap<string, readonly GotrueRow[]>;
  readonly claims: ReadonlyMap<string, readonly GotrueRow[]>;
}

/**
 * A live session with its refresh tokens, or null when nothing can refresh it any more. The token a client holds is
 * GoTrue's newest live one (legacy rows) or the one its counter names (v2); the one it replaced becomes the previous
 * token; every other token of the session is kept too, so that presenting one is detected as reuse.
 */
function mapSession(
  row: GotrueRow,
  { tokens, claims }: BySession,
  factorIds: ReadonlySet<string>,
  context: MapContext,
): ImportedSession | null {
  const id = String(row["id"]);
  const notAfter = dateOf(row["not_after"]);
  if (notAfter !== null && notAfter.getTime() <= context.now.getTime()) return null;
  // security: a third-party client's session brought over as a first-party one would let that client refresh it
  // without authenticating, with the user's whole access; its clients are not brought yet, so it stays behind.
  const oauthClientId = nonEmpty(row["oauth_client_id"]);
  if (oauthClientId !== null) {
    throw new Error(`session ${id}: held by the OAuth client ${oauthClientId}, and OAuth clients are not brought over`);
  }
  const createdAt = dateOf(row["created_at"]) ?? new Date(0);
  const updatedAt = dateOf(row["updated_at"]) ?? createdAt;
  const chain = tokenChain(row, tokens.get(id) ?? [], context.factorSecrets);
  if (chain === null) return null;
  // Each token linked to the one before it, oldest first, and written as created now: the clean-up deletes a
  // rotated token a day after its child's creation, and walks rotations in that order, never behind where it got
  // (docs/compatibility.md, "Moving from Supabase Auth"), so the session's old tokens go a day after the import.
  const digestOf = (token: string, parentId: string | null): RefreshToken => ({
    id: importedTokenId(token),
    sessionId: id,
    parentId,
    tokenHash: refreshTokenDigest(context.secrets, token),
    createdAt: context.now,
  });
  const others: RefreshToken[] = [];
  for (const other of chain.others) others.push(digestOf(other, others.at(-1)?.id ?? null));
  const previous = chain.previous === null ? null : digestOf(chain.previous, others.at(-1)?.id ?? null);
  const current = digestOf(chain.current, previous?.id ?? others.at(-1)?.id ?? null);
  const factorId = nonEmpty(row["factor_id"]);
  const aal2 = row["aal"] === "aal2" || row["aal"] === "aal3";
  const amr: AmrEntry[] = (claims.get(id) ?? [])
    .filter((claim) => AMR_METHODS.has(String(claim["authentication_method"])))
    .map((claim) => ({
      method: String(claim["authentication_method"]) as AuthMethod,
      at: dateOf(claim["updated_at"]) ?? dateOf(claim["created_at"]) ?? createdAt,
    }))
    .sort((a, b) => b.at.getTime() - a.at.getTime());
  return {
    session: {
      id,
      userId: String(row["user_id"]),
      aal: aal2 && factorId !== null && factorIds.has(factorId) ? "aal2" : "aal1",
      amr,
      refreshTokenId: current.id,
      previousRefreshTokenId: previous?.id ?? null,
      // compat: the reuse interval counts from the import, not from GoTrue's rotation (docs/compatibility.md,
      // "Moving from Supabase Auth"): a client whose last refresh raced the switch keeps its session.
      rotatedAt: previous === null ? null : context.now,
      userAgent: nonEmpty(row["user_agent"]),
      ip: nonEmpty(row["ip"])?.replace(/\/(32|128)$/, "") ?? null,
      notAfter,
      factorId: factorId !== null && factorIds.has(factorId) ? factorId : null,
      oauthClientId: null,
      scopes: null,
      createdAt,
      updatedAt,
    },
    refreshTokens: [...others, ...(previous ? [previous] : []), current],
  };
}

/** The session's current token, the one it replaced and the rest (oldest first), in GoTrue's format of that session. */
function tokenChain(
  session: GotrueRow,
  rows: readonly GotrueRow[],
  sealed: FactorSecrets,
): { current: string; previous: string | null; others: string[] } | null {
  const key = hmacKeyOf(session, sealed);
  const counter = session["refresh_token_counter"];
  if (key !== null && counter !== null && counter !== undefined) {
    const at = Number(counter);
    return {
      current: v2RefreshToken(String(session["id"]), key, at),
      // A client one token behind (its last answer lost) is answered again, within the reuse interval.
      previous: at > 0 ? v2RefreshToken(String(session["id"]), key, at - 1) : null,
      others: [],
    };
  }
  const ordered = [...rows].sort((a, b) => (BigInt(String(a["id"])) < BigInt(String(b["id"])) ? -1 : 1));
  const live = ordered.filter((row) => row["revoked"] !== true);
  const newest = live.at(-1);
  if (newest === undefined) return null;
  const parentToken = nonEmpty(newest["parent"]);
  const parent = parentToken === null ? undefined : ordered.find((row) => row["token"] === parentToken);
  return {
    current: String(newest["token"]),
    previous: parent === undefined ? null : String(parent["token"]),
    others: ordered.filter((row) => row !== newest && row !== parent).map((row) => String(row["token"])),
  };
}

/**
 * A v2 session's HMAC key: GoTrue seals it as it seals TOTP secrets (bound to the session's id) when
 * SECURITY_DB_ENCRYPTION_ENCRYPT is on. One that cannot be opened leaves the session unusable, so it is left out.
 */
function hmacKeyOf(session: GotrueRow, sealed: FactorSecrets): string | null {
  const stored = nonEmpty(session["refresh_token_hmac_key"]);
  if (stored === null || !stored.startsWith("{")) return stored;
  try {
    return sealed.open(String(session["id"]), stored);
  } catch {
    throw new Error(
      `${String(session["id"])}: its refresh key is sealed with key ${JSON.stringify(keyIdOf(stored))}, which SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS does not hold`,
    );
  }
}

function phoneOf(raw: string, what: string): string {
  try {
    return normalizePhone(raw);
  } catch {
    throw new Skip(`${what} ${JSON.stringify(raw)} is not an E.164 number`);
  }
}

function keyIdOf(sealed: string): string | null {
  try {
    const parsed = JSON.parse(sealed) as { key_id?: unknown };
    return typeof parsed.key_id === "string" ? parsed.key_id : null;
  } catch {
    return null;
  }
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}
