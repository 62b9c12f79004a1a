import { createHash, randomBytes, randomUUID } from "node:crypto";
import { type GotrueDatabase, quote } from "./gotrue-database.ts";
import {
  gotrueArgon2,
  gotrueBcrypt,
  gotrueRefreshTokenHmacKey,
  gotrueSealedSecret,
  gotrueTokenHash,
  gotrueTotpSecret,
  gotrueV2RefreshToken,
  gotrueWebAuthnCredential,
} from "./gotrue-formats.ts";
import type { GotrueSession, GotrueUser, Json, OneTimeTokenType } from "./gotrue-rows.ts";

// GoTrue's soft delete (docs/compatibility.md, "Moving from Supabase Auth") replaces the email, phone, email_change
// and phone_change with base64url(SHA-256(user id ‖ value)), even where the value is empty, the phone's cut to 15
// characters; clears the password and tokens, empties the metadata and the identities' data, replaces their provider
// ids with the digest of "provider:provider_id", and deletes the sessions and factors.
const obfuscate = (userId: string, value: string) =>
  createHash("sha256")
    .update(userId + value)
    .digest("base64url");
const obfuscatePhone = (userId: string, value: string) => obfuscate(userId, value).slice(0, 15);

const randomOtp = () => String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, "0");

export interface FixtureAccount {
  readonly id: string;
  readonly email: string;
  readonly password: string;
}

/** Ids and plaintexts of the awkward fixture's rows: what a client of the GoTrue server would hold. */
export interface AwkwardFixture {
  /** Confirmed email user, bcrypt password ($2a$, as Go writes it), one email identity. */
  readonly withPassword: FixtureAccount;
  /** The same with an argon2id hash ($argon2id$v=19$m=4096,t=2,p=1$…). */
  readonly withArgon2Password: FixtureAccount;
  /** No email; phone stored as GoTrue does, digits without '+'; confirmed; a phone identity. */
  readonly phoneOnly: { readonly id: string; readonly phone: string; readonly password: string };
  /**
   * deleted_at set, as GoTrue's soft delete leaves a user that had a session, a TOTP factor and a pending email
   * change: `storedEmail` is base64url(SHA-256(id ‖ email)), the phone, email_change and phone_change digests too (of
   * '' where there was none), no password, tokens '', {} metadata, the identity's data {} and provider_id obfuscated,
   * no session or factor left.
   */
  readonly softDeleted: {
    readonly id: string;
    readonly email: string;
    readonly password: string;
    readonly storedEmail: string;
    readonly storedPhone: string;
    readonly storedEmailChange: string;
    readonly storedPhoneChange: string;
  };
  /**
   * A session on v2 tokens whose client is one token behind: it holds `heldToken` (counter 4), GoTrue's last answer
   * to it (counter 5, `newestToken`) lost on the way.
   */
  readonly oneBehind: FixtureAccount & {
    readonly sessionId: string;
    readonly heldToken: string;
    readonly newestToken: string;
  };
  /** banned_until about 100 years ahead (ban_duration 876000h). */
  readonly banned: FixtureAccount & { readonly bannedUntil: Date };
  /** is_anonymous, no email, phone or identity, {} app metadata; signed in (amr 'anonymous'). */
  readonly anonymous: { readonly id: string; readonly sessionId: string; readonly refreshToken: string };
  /** invited_at set, no password, a pending confirmation link (users.confirmation_token and a one_time_tokens row). */
  readonly invited: { readonly id: string; readonly email: string; readonly otp: string; readonly tokenHash: string };
  /** Signed up, email not confirmed: a pending confirmation link as for `invited`. */
  readonly unconfirmed: FixtureAccount & { readonly otp: string; readonly tokenHash: string };
  /** Confirmed; email_change pending with both tokens (secure email change), one_time_tokens rows for each. */
  readonly pendingEmailChange: FixtureAccount & {
    readonly newEmail: string;
    readonly otpNew: string;
    readonly otpCurrent: string;
  };
  /** Phone user with phone_change pending (token column and one_time_tokens row). */
  readonly pendingPhoneChange: {
    readonly id: string;
    readonly phone: string;
    readonly password: string;
    readonly newPhone: string;
    readonly otp: string;
  };
  /** Confirmed, with a pending recovery link (recovery_token, recovery_sent_at and a one_time_tokens row). */
  readonly pendingRecovery: FixtureAccount & { readonly otp: string; readonly tokenHash: string };
  /**
   * Inserted in SQL as some projects do: confirmation_token, recovery_token, email_change_token_new and email_change
   * (the columns without a default) NULL, and no identity.
   */
  readonly nullTokens: FixtureAccount;
  /** No password; a github identity whose identity_data email is mixed-case (users.email is lower-case). */
  readonly oauthOnly: {
    readonly id: string;
    readonly email: string;
    readonly provider: "github";
    readonly providerId: string;
  };
  /** A session mid-rotation on legacy tokens: root (revoked) -> parent (revoked) -> refreshToken (live); amr 'password'. */
  readonly withSession: FixtureAccount & {
    readonly sessionId: string;
    readonly refreshToken: string;
    readonly parentToken: string;
    readonly rootToken: string;
  };
  /**
   * A session on v2 tokens at counter 3, upgraded from a legacy token (kept, revoked, as GoTrue leaves it). The hmac
   * key is sealed like factor secrets (info = session id) when the fixture has an encryption key, as GoTrue does.
   */
  readonly withV2Session: FixtureAccount & {
    readonly sessionId: string;
    readonly hmacKey: string;
    readonly hmacKeySealed: boolean;
    readonly counter: number;
    readonly refreshToken: string;
    readonly upgradedFromToken: string;
  };
  /** A verified TOTP factor (secret sealed when the fixture has an encryption key) and an aal2 session. */
  readonly withFactor: {
    readonly userId: string;
    readonly factorId: string;
    readonly secret: string;
    readonly secretSealed: boolean;
    readonly email: string;
    readonly password: string;
    readonly sessionId: string;
    readonly refreshToken: string;
  };
  /** A verified phone factor and a pending challenge whose otp_code is sealed when the fixture has a key. */
  readonly withPhoneFactor: FixtureAccount & {
    readonly factorId: string;
    readonly phone: string;
    readonly challengeId: string;
    readonly otp: string;
  };
  /**
   * A passkey (unnamed, as GoTrue's column defaults to ''), a verified WebAuthn factor with its credential, and an
   * unverified one (no credential yet); a session signed in with the passkey. Credential ids base64url.
   */
  readonly withWebAuthn: FixtureAccount & {
    readonly passkeyId: string;
    readonly passkeyCredentialId: string;
    readonly factorId: string;
    readonly factorCredentialId: string;
    readonly unverifiedFactorId: string;
    readonly sessionId: string;
  };
  /**
   * SAML single sign-on. `provider` (a resource id, two domains as an admin typed them, mixed case, metadata XML with
   * CRLFs and a trailing newline, an attribute mapping and a NameID format) and `disabledProvider` (disabled, no
   * domain, no mapping); SSO users: `id` of `provider`, with the same email as `withPassword` (SSO users may share
   * one), a SAML identity and a live session (legacy token, amr `sso/saml`); `sameEmailId` of `disabledProvider`,
   * the same email again; `orphanId`, of a provider GoTrue deleted since (`orphanProviderId`), as GoTrue keeps them.
   */
  readonly sso: {
    readonly id: string;
    readonly email: string;
    readonly subject: string;
    readonly sessionId: string;
    readonly refreshToken: string;
    readonly provider: {
      readonly id: string;
      readonly resourceId: string;
      readonly entityId: string;
      readonly metadataXml: string;
      readonly domains: readonly string[];
      readonly attributeMapping: Json;
      readonly nameIdFormat: string;
    };
    readonly disabledProvider: { readonly id: string; readonly entityId: string };
    readonly sameEmailId: string;
    readonly orphanId: string;
    readonly orphanProviderId: string;
  };
  /** A user of another (legacy) instance: GoTrue ignores it; the importer skips it, saying so. */
  readonly otherInstance: FixtureAccount & { readonly instanceId: string };
  readonly auditEntryIds: readonly string[];
}

const DAY_MS = 86_400_000;
const EMAIL_APP_METADATA = { provider: "email", providers: ["email"] };
const PHONE_APP_METADATA = { provider: "phone", providers: ["phone"] };

/** A WebAuthn credential's bytes: its id and its public key (a COSE_Key). */
export interface CredentialBytes {
  readonly id: Uint8Array;
  readonly publicKey: Uint8Array;
}

/**
 * Makes the credentials of `withWebAuthn`, for its user (whose id is the user handle): an e2e test gives its
 * authenticator's, so that they sign in after the import. Random bytes unless given.
 */
export type CredentialMaker = (userId: string, use: "passkey" | "factor") => CredentialBytes;

const randomCredential: CredentialMaker = () => ({ id: randomBytes(16), publicKey: randomBytes(77) });

/** The awkward fixture the importer's tests and the e2e test use: every kind of row, and what a client would hold. */
export async function seedAwkwardFixture(
  db: GotrueDatabase,
  options: { encryptionKey?: { id: string; keyBase64Url: string }; credential?: CredentialMaker } = {},
): Promise<AwkwardFixture> {
  const s = createSeeder(db, options.encryptionKey);
  // In this order, which is that of the users' created_at.
  const withPassword = await emailAccount(s, "with-password");
  const withArgon2Password = await emailAccount(s, "with-argon2-password", {}, { hasher: gotrueArgon2 });
  const phoneOnly = await phoneAccount(s, "15550100001");
  const softDeleted = await seedSoftDeleted(s);
  const banned = await seedBanned(s);
  const anonymous = await seedAnonymous(s);
  const invited = await seedInvited(s);
  const unconfirmed = await seedUnconfirmed(s);
  const pendingEmailChange = await seedPendingEmailChange(s);
  const pendingPhoneChange = await seedPendingPhoneChange(s);
  const pendingRecovery = await seedPendingRecovery(s);
  const nullTokens = await seedNullTokens(s);
  const oauthOnly = await seedOauthOnly(s);
  const withSession = await seedWithSession(s);
  const withV2Session = await seedWithV2Session(s);
  const oneBehind = await seedOneBehind(s);
  const withFactor = await seedWithFactor(s);
  const withPhoneFactor = await seedWithPhoneFactor(s);
  const withWebAuthn = await seedWithWebAuthn(s, options.credential ?? randomCredential);
  const sso = await seedSso(s, withPassword.email);
  const otherInstance = await seedOtherInstance(s);
  const auditEntryIds = await seedAuditEntries(s, withPassword, withSession);
  return {
    withPassword,
    withArgon2Password,
    phoneOnly,
    softDeleted,
    oneBehind,
    banned,
    anonymous,
    invited,
    unconfirmed,
    pendingEmailChange,
    pendingPhoneChange,
    pendingRecovery,
    nullTokens,
    oauthOnly,
    withSession,
    withV2Session,
    withFactor,
    withPhoneFactor,
    withWebAuthn,
    sso,
    otherInstance,
    auditEntryIds,
  };
}

/** What each part of the fixture is seeded with: the database, one clock for all, and the encryption key's use. */
interface Seeder {
  readonly db: GotrueDatabase;
  /** The fixture's "now", in ms. */
  readonly now: number;
  /** Whether secrets are sealed (the fixture has an encryption key). */
  readonly sealed: boolean;
  /** The value sealed as GoTrue seals it for the row (when the fixture has a key), or as it is. */
  seal(rowId: string, value: string): string;
  ago(ms: number): Date;
  /** The next user's created_at. */
  nextCreatedAt(): Date;
}

function createSeeder(db: GotrueDatabase, key: { id: string; keyBase64Url: string } | undefined): Seeder {
  const now = Date.now();
  // Users created a minute apart over the last month, so that any ordering by created_at is deterministic.
  let created = 0;
  return {
    db,
    now,
    sealed: key !== undefined,
    seal: (rowId, value) => (key ? gotrueSealedSecret(rowId, value, key) : value),
    ago: (ms) => new Date(now - ms),
    nextCreatedAt: () => new Date(now - 30 * DAY_MS + created++ * 60_000),
  };
}

type UserFields = Partial<Omit<GotrueUser, "confirmed_at">>;

/** A user of `name`@example.com with a password and an email identity, confirmed unless told otherwise. */
async function emailAccount(
  s: Seeder,
  name: string,
  fields: UserFields = {},
  { hasher = gotrueBcrypt, confirmed = true } = {},
): Promise<FixtureAccount> {
  const id = randomUUID();
  const email = `${name}@example.com`;
  const password = `${name} correct horse`;
  const at = s.nextCreatedAt();
  const identityData = { sub: id, email, email_verified: confirmed, phone_verified: false };
  await s.db.insertUser({
    id,
    email,
    encrypted_password: await hasher(password),
    email_confirmed_at: confirmed ? at : null,
    raw_app_meta_data: EMAIL_APP_METADATA,
    raw_user_meta_data: identityData,
    created_at: at,
    updated_at: at,
    ...fields,
  });
  await s.db.insertIdentity({
    user_id: id,
    provider: "email",
    provider_id: id,
    identity_data: identityData,
    created_at: at,
    updated_at: at,
    last_sign_in_at: confirmed ? at : null,
  });
  return { id, email, password };
}

/** A confirmed user of `phone` with a password and a phone identity. */
async function phoneAccount(s: Seeder, phone: string, fields: UserFields = {}) {
  const id = randomUUID();
  const password = `${phone} correct horse`;
  const at = s.nextCreatedAt();
  const identityData = { sub: id, phone, email_verified: false, phone_verified: true };
  await s.db.insertUser({
    id,
    phone,
    encrypted_password: await gotrueBcrypt(password),
    phone_confirmed_at: at,
    raw_app_meta_data: PHONE_APP_METADATA,
    raw_user_meta_data: identityData,
    created_at: at,
    updated_at: at,
    ...fields,
  });
  await s.db.insertIdentity({
    user_id: id,
    provider: "phone",
    provider_id: id,
    identity_data: identityData,
    created_at: at,
    updated_at: at,
    last_sign_in_at: at,
  });
  return { id, phone, password };
}

/** A one_time_tokens row for the otp sent to `relatesTo`; returns its token hash, for the users table's column. */
async function pendingToken(
  db: GotrueDatabase,
  token: { userId: string; tokenType: OneTimeTokenType; relatesTo: string; otp: string },
): Promise<string> {
  const tokenHash = gotrueTokenHash(token.relatesTo, token.otp);
  await db.insertOneTimeToken({
    user_id: token.userId,
    token_type: token.tokenType,
    token_hash: tokenHash,
    relates_to: token.relatesTo,
  });
  return tokenHash;
}

/** A session signed in by `methods` two hours ago (refreshed ten minutes ago), and the user's last_sign_in_at. */
async function signIn(
  s: Seeder,
  userId: string,
  methods: readonly string[],
  fields: Partial<GotrueSession> = {},
): Promise<GotrueSession> {
  const session = await s.db.insertSession({
    user_id: userId,
    created_at: s.ago(2 * 3_600_000),
    updated_at: s.ago(600_000),
    refreshed_at: s.ago(600_000),
    user_agent: "supabase-js/2.x node",
    ip: "203.0.113.7",
    ...fields,
  });
  for (const method of methods) {
    await s.db.insertAmrClaim({ session_id: session.id, authentication_method: method });
  }
  await s.db.client.query(`update ${quote(s.db.schema)}.users set last_sign_in_at = $2 where id = $1`, [
    userId,
    session.created_at,
  ]);
  return session;
}

/** A user with a session, a factor and a pending email change, then soft-deleted as GoTrue does it. */
async function seedSoftDeleted(s: Seeder): Promise<AwkwardFixture["softDeleted"]> {
  const { db } = s;
  const deletedEmail = "soft-deleted@example.com";
  const account = await emailAccount(s, "soft-deleted", {
    email_change: "soft-deleted-new@example.com",
    email_change_sent_at: s.ago(DAY_MS),
  });
  const deletedSession = await signIn(s, account.id, ["password"]);
  await db.insertRefreshToken({ session_id: deletedSession.id, user_id: account.id });
  await db.insertFactor({ user_id: account.id, secret: gotrueTotpSecret() });
  const stored = {
    storedEmail: obfuscate(account.id, deletedEmail),
    storedPhone: obfuscatePhone(account.id, ""),
    storedEmailChange: obfuscate(account.id, "soft-deleted-new@example.com"),
    storedPhoneChange: obfuscatePhone(account.id, ""),
  };
  await db.client.query(
    `update ${quote(db.schema)}.users set email = $2, phone = $3, email_change = $4, phone_change = $5,
       encrypted_password = null, confirmation_token = '', recovery_token = '', email_change_token_current = '',
       email_change_token_new = '', phone_change_token = '', raw_app_meta_data = '{}', raw_user_meta_data = '{}',
       deleted_at = now() where id = $1`,
    [account.id, stored.storedEmail, stored.storedPhone, stored.storedEmailChange, stored.storedPhoneChange],
  );
  await db.client.query(
    `update ${quote(db.schema)}.identities set identity_data = '{}', provider_id = $2 where user_id = $1`,
    [account.id, obfuscate(account.id, `email:${account.id}`)],
  );
  for (const table of ["sessions", "mfa_factors"]) {
    await db.client.query(`delete from ${quote(db.schema)}.${table} where user_id = $1`, [account.id]);
  }
  return { ...account, ...stored };
}

async function seedBanned(s: Seeder): Promise<AwkwardFixture["banned"]> {
  const bannedUntil = new Date(s.now + 876_000 * 3_600_000);
  return { ...(await emailAccount(s, "banned", { banned_until: bannedUntil })), bannedUntil };
}

async function seedAnonymous(s: Seeder): Promise<AwkwardFixture["anonymous"]> {
  const id = randomUUID();
  await s.db.insertUser({ id, is_anonymous: true, created_at: s.nextCreatedAt() });
  const session = await signIn(s, id, ["anonymous"]);
  const token = await s.db.insertRefreshToken({ session_id: session.id, user_id: id });
  return { id, sessionId: session.id, refreshToken: required(token.token) };
}

async function seedInvited(s: Seeder): Promise<AwkwardFixture["invited"]> {
  const otp = randomOtp();
  const account = await emailAccount(
    s,
    "invited",
    { encrypted_password: "", invited_at: s.ago(DAY_MS), confirmation_sent_at: s.ago(DAY_MS) },
    { confirmed: false },
  );
  const tokenHash = await pendingToken(s.db, {
    userId: account.id,
    tokenType: "confirmation_token",
    relatesTo: account.email,
    otp,
  });
  await setUser(s.db, account.id, { confirmation_token: tokenHash });
  return { id: account.id, email: account.email, otp, tokenHash };
}

async function seedUnconfirmed(s: Seeder): Promise<AwkwardFixture["unconfirmed"]> {
  const otp = randomOtp();
  const account = await emailAccount(s, "unconfirmed", { confirmation_sent_at: s.ago(300_000) }, { confirmed: false });
  const tokenHash = await pendingToken(s.db, {
    userId: account.id,
    tokenType: "confirmation_token",
    relatesTo: account.email,
    otp,
  });
  await setUser(s.db, account.id, { confirmation_token: tokenHash });
  return { ...account, otp, tokenHash };
}

async function seedPendingEmailChange(s: Seeder): Promise<AwkwardFixture["pendingEmailChange"]> {
  const newEmail = "changed-email@example.com";
  const otpNew = randomOtp();
  const otpCurrent = randomOtp();
  const account = await emailAccount(s, "pending-email-change", {
    email_change: newEmail,
    email_change_sent_at: s.ago(120_000),
  });
  await setUser(s.db, account.id, {
    email_change_token_new: await pendingToken(s.db, {
      userId: account.id,
      tokenType: "email_change_token_new",
      relatesTo: newEmail,
      otp: otpNew,
    }),
    email_change_token_current: await pendingToken(s.db, {
      userId: account.id,
      tokenType: "email_change_token_current",
      relatesTo: account.email,
      otp: otpCurrent,
    }),
  });
  return { ...account, newEmail, otpNew, otpCurrent };
}

async function seedPendingPhoneChange(s: Seeder): Promise<AwkwardFixture["pendingPhoneChange"]> {
  const newPhone = "15550100003";
  const otp = randomOtp();
  const account = await phoneAccount(s, "15550100002", { phone_change: newPhone, phone_change_sent_at: s.ago(60_000) });
  await setUser(s.db, account.id, {
    phone_change_token: await pendingToken(s.db, {
      userId: account.id,
      tokenType: "phone_change_token",
      relatesTo: newPhone,
      otp,
    }),
  });
  return { ...account, newPhone, otp };
}

async function seedPendingRecovery(s: Seeder): Promise<AwkwardFixture["pendingRecovery"]> {
  const otp = randomOtp();
  const account = await emailAccount(s, "pending-recovery", { recovery_sent_at: s.ago(240_000) });
  const tokenHash = await pendingToken(s.db, {
    userId: account.id,
    tokenType: "recovery_token",
    relatesTo: account.email,
    otp,
  });
  await setUser(s.db, account.id, { recovery_token: tokenHash });
  return { ...account, otp, tokenHash };
}

// The columns of GoTrue's first migration have no default, so a row inserted in SQL leaves them NULL.
async function seedNullTokens(s: Seeder): Promise<AwkwardFixture["nullTokens"]> {
  const password = "null-tokens correct horse";
  const at = s.nextCreatedAt();
  const user = await s.db.insertUser({
    email: "null-tokens@example.com",
    encrypted_password: await gotrueBcrypt(password),
    email_confirmed_at: at,
    confirmation_token: null,
    recovery_token: null,
    email_change_token_new: null,
    email_change: null,
    raw_app_meta_data: EMAIL_APP_METADATA,
    created_at: at,
    updated_at: at,
  });
  return { id: user.id, email: required(user.email), password };
}

async function seedOauthOnly(s: Seeder): Promise<AwkwardFixture["oauthOnly"]> {
  const githubId = "123456";
  const githubData = {
    iss: "https://api.github.com",
    sub: githubId,
    provider_id: githubId,
    name: "The Octocat",
    full_name: "The Octocat",
    user_name: "octocat",
    preferred_username: "octocat",
    avatar_url: `https://avatars.githubusercontent.com/u/${githubId}?v=4`,
    email: "Octocat@Example.com",
    email_verified: true,
    phone_verified: false,
  };
  const at = s.nextCreatedAt();
  const user = await s.db.insertUser({
    email: githubData.email.toLowerCase(),
    email_confirmed_at: at,
    raw_app_meta_data: { provider: "github", providers: ["github"] },
    raw_user_meta_data: githubData,
    created_at: at,
    updated_at: at,
  });
  await s.db.insertIdentity({
    user_id: user.id,
    provider: "github",
    provider_id: githubId,
    identity_data: githubData,
    last_sign_in_at: at,
    created_at: at,
    updated_at: at,
  });
  return { id: user.id, email: required(user.email), provider: "github", providerId: githubId };
}

async function seedWithSession(s: Seeder): Promise<AwkwardFixture["withSession"]> {
  const account = await emailAccount(s, "with-session");
  const session = await signIn(s, account.id, ["password"]);
  const chain = { session_id: session.id, user_id: account.id };
  const root = await s.db.insertRefreshToken({ ...chain, revoked: true, created_at: s.ago(2 * 3_600_000) });
  const parent = await s.db.insertRefreshToken({
    ...chain,
    revoked: true,
    parent: root.token,
    created_at: s.ago(3_600_000),
  });
  const live = await s.db.insertRefreshToken({ ...chain, parent: parent.token, created_at: s.ago(600_000) });
  return {
    ...account,
    sessionId: session.id,
    refreshToken: required(live.token),
    parentToken: required(parent.token),
    rootToken: required(root.token),
  };
}

async function seedWithV2Session(s: Seeder): Promise<AwkwardFixture["withV2Session"]> {
  const account = await emailAccount(s, "with-v2-session");
  const hmacKey = gotrueRefreshTokenHmacKey();
  const sessionId = randomUUID();
  const counter = 3;
  const session = await signIn(s, account.id, ["password"], {
    id: sessionId,
    refresh_token_hmac_key: s.seal(sessionId, hmacKey),
    refresh_token_counter: counter,
  });
  const upgradedFrom = await s.db.insertRefreshToken({
    session_id: session.id,
    user_id: account.id,
    revoked: true,
    created_at: s.ago(2 * 3_600_000),
  });
  return {
    ...account,
    sessionId,
    hmacKey,
    hmacKeySealed: s.sealed,
    counter,
    refreshToken: gotrueV2RefreshToken(sessionId, hmacKey, counter),
    upgradedFromToken: required(upgradedFrom.token),
  };
}

async function seedOneBehind(s: Seeder): Promise<AwkwardFixture["oneBehind"]> {
  const account = await emailAccount(s, "one-behind");
  const hmacKey = gotrueRefreshTokenHmacKey();
  const sessionId = randomUUID();
  await signIn(s, account.id, ["password"], {
    id: sessionId,
    refresh_token_hmac_key: s.seal(sessionId, hmacKey),
    refresh_token_counter: 5,
  });
  return {
    ...account,
    sessionId,
    heldToken: gotrueV2RefreshToken(sessionId, hmacKey, 4),
    newestToken: gotrueV2RefreshToken(sessionId, hmacKey, 5),
  };
}

async function seedWithFactor(s: Seeder): Promise<AwkwardFixture["withFactor"]> {
  const account = await emailAccount(s, "with-factor");
  const factorId = randomUUID();
  const secret = gotrueTotpSecret();
  await s.db.insertFactor({
    id: factorId,
    user_id: account.id,
    friendly_name: "Authenticator app",
    secret: s.seal(factorId, secret),
    last_challenged_at: s.ago(2 * 3_600_000),
  });
  await s.db.insertChallenge({
    factor_id: factorId,
    created_at: s.ago(2 * 3_600_000),
    verified_at: s.ago(2 * 3_600_000),
  });
  const session = await signIn(s, account.id, ["password", "totp"], { aal: "aal2", factor_id: factorId });
  const token = await s.db.insertRefreshToken({ session_id: session.id, user_id: account.id });
  return {
    userId: account.id,
    factorId,
    secret,
    secretSealed: s.sealed,
    email: account.email,
    password: account.password,
    sessionId: session.id,
    refreshToken: required(token.token),
  };
}

async function seedWithPhoneFactor(s: Seeder): Promise<AwkwardFixture["withPhoneFactor"]> {
  const account = await emailAccount(s, "with-phone-factor");
  const phone = "15550100009";
  const factor = await s.db.insertFactor({
    user_id: account.id,
    friendly_name: "My phone",
    factor_type: "phone",
    phone,
    last_challenged_at: s.ago(30_000),
  });
  const challengeId = randomUUID();
  const otp = randomOtp();
  await s.db.insertChallenge({
    id: challengeId,
    factor_id: factor.id,
    created_at: s.ago(30_000),
    otp_code: s.seal(challengeId, otp),
  });
  return { ...account, factorId: factor.id, phone, challengeId, otp };
}

async function seedWithWebAuthn(s: Seeder, credential: CredentialMaker): Promise<AwkwardFixture["withWebAuthn"]> {
  const account = await emailAccount(s, "with-webauthn");
  const passkey = credential(account.id, "passkey");
  const { id: passkeyId } = await s.db.insertPasskey({
    user_id: account.id,
    credential_id: Buffer.from(passkey.id),
    public_key: Buffer.from(passkey.publicKey),
    sign_count: 0,
    last_used_at: s.ago(3_600_000),
  });
  const key = credential(account.id, "factor");
  const factor = await s.db.insertFactor({
    user_id: account.id,
    friendly_name: "Security key",
    factor_type: "webauthn",
    web_authn_credential: gotrueWebAuthnCredential(key),
    // GoTrue's column is unique: not withFactor's.
    last_challenged_at: s.ago(3 * 3_600_000),
  });
  const unverified = await s.db.insertFactor({ user_id: account.id, factor_type: "webauthn", status: "unverified" });
  const session = await signIn(s, account.id, ["passkey"]);
  await s.db.insertRefreshToken({ session_id: session.id, user_id: account.id });
  return {
    ...account,
    passkeyId,
    passkeyCredentialId: Buffer.from(passkey.id).toString("base64url"),
    factorId: factor.id,
    factorCredentialId: Buffer.from(key.id).toString("base64url"),
    unverifiedFactorId: unverified.id,
    sessionId: session.id,
  };
}

/** An IdP's metadata as an admin gave it: its bytes as they are (CRLFs, indentation, a trailing newline). */
function idpMetadata(entityId: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">`,
    '  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    `    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${entityId}/sso"/>`,
    "  </md:IDPSSODescriptor>",
    "</md:EntityDescriptor>",
    "",
  ].join("\r\n");
}

async function seedSso(s: Seeder, email: string): Promise<AwkwardFixture["sso"]> {
  const entityId = "https://idp.acme.test/saml";
  const attributeMapping = { keys: { email: { name: "mail" }, name: { names: ["displayName", "cn"] } } };
  const nameIdFormat = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
  const domains = ["Acme.test", "corp.ACME.test"];
  const created = s.ago(90 * DAY_MS);
  const { provider, saml } = await s.db.insertSsoProvider({
    provider: { resource_id: "acme", created_at: created, updated_at: created },
    saml: { entity_id: entityId, metadata_xml: idpMetadata(entityId), attribute_mapping: attributeMapping },
    domains,
  });
  // Set later, as an admin's update does.
  await s.db.client.query(`update ${quote(s.db.schema)}.saml_providers set name_id_format = $2 where id = $1`, [
    saml.id,
    nameIdFormat,
  ]);
  const disabledEntityId = "https://idp.old.test/metadata";
  const disabled = await s.db.insertSsoProvider({
    provider: { disabled: true, created_at: s.ago(80 * DAY_MS), updated_at: s.ago(DAY_MS) },
    saml: { entity_id: disabledEntityId, metadata_xml: idpMetadata(disabledEntityId) },
  });
  const subject = "saml-subject-1";
  const user = await ssoUser(s, provider.id, subject, email);
  const sameEmail = await ssoUser(s, disabled.provider.id, "old-idp-subject", email);
  const orphanProviderId = randomUUID();
  const orphan = await ssoUser(s, orphanProviderId, "gone-idp-subject", "orphan@acme.test");
  const session = await s.db.insertSession({ user_id: user.id, created_at: s.ago(DAY_MS), updated_at: s.ago(DAY_MS) });
  const token = await s.db.insertRefreshToken({ session_id: session.id, user_id: user.id });
  await s.db.insertAmrClaim({ session_id: session.id, authentication_method: "sso/saml" });
  return {
    id: user.id,
    email,
    subject,
    sessionId: session.id,
    refreshToken: required(token.token),
    provider: {
      id: provider.id,
      resourceId: "acme",
      entityId,
      metadataXml: saml.metadata_xml,
      domains,
      attributeMapping,
      nameIdFormat,
    },
    disabledProvider: { id: disabled.provider.id, entityId: disabledEntityId },
    sameEmailId: sameEmail.id,
    orphanId: orphan.id,
    orphanProviderId,
  };
}

/** An SSO user of the provider, confirmed, with its SAML identity, as GoTrue's ACS makes one. */
async function ssoUser(s: Seeder, providerId: string, subject: string, email: string): Promise<GotrueUser> {
  const at = s.nextCreatedAt();
  const user = await s.db.insertUser({
    email,
    is_sso_user: true,
    email_confirmed_at: at,
    raw_app_meta_data: { provider: `sso:${providerId}`, providers: [`sso:${providerId}`] },
    created_at: at,
    updated_at: at,
  });
  await s.db.insertIdentity({
    user_id: user.id,
    provider: `sso:${providerId}`,
    provider_id: subject,
    identity_data: { sub: subject, email, email_verified: true },
    created_at: at,
    updated_at: at,
  });
  return user;
}

async function seedOtherInstance(s: Seeder): Promise<AwkwardFixture["otherInstance"]> {
  const instanceId = "11111111-1111-4111-8111-111111111111";
  return { ...(await emailAccount(s, "other-instance", { instance_id: instanceId })), instanceId };
}

/** A sign-up and a login by `withPassword`, a refresh and a revocation by `withSession`: the entries' ids. */
async function seedAuditEntries(
  s: Seeder,
  withPassword: FixtureAccount,
  withSession: FixtureAccount,
): Promise<readonly string[]> {
  const entries = [
    await audit(s, {
      action: "user_signedup",
      logType: "team",
      actor: withPassword,
      extra: { traits: { provider: "email" } },
    }),
    await audit(s, {
      action: "login",
      logType: "account",
      actor: withPassword,
      extra: { traits: { provider: "email" } },
      ip: "203.0.113.7",
    }),
    await audit(s, { action: "token_refreshed", logType: "token", actor: withSession }),
    await audit(s, { action: "token_revoked", logType: "token", actor: withSession }),
  ];
  return entries.map((entry) => entry.id);
}

/** An audit_log_entries row of a day ago, its payload as GoTrue writes it. */
function audit(
  s: Seeder,
  entry: { action: string; logType: string; actor: FixtureAccount; extra?: Json; ip?: string },
) {
  const { action, logType, actor, extra = {}, ip = "" } = entry;
  return s.db.insertAuditEntry({
    payload: {
      action,
      actor_id: actor.id,
      actor_username: actor.email,
      actor_via_sso: false,
      log_type: logType,
      ...extra,
    },
    ip_address: ip,
    created_at: s.ago(DAY_MS),
  });
}

async function setUser(db: GotrueDatabase, id: string, fields: Record<string, string>): Promise<void> {
  const columns = Object.keys(fields);
  await db.client.query(
    `update ${quote(db.schema)}.users set ${columns.map((column, i) => `${quote(column)} = $${i + 2}`).join(", ")}
     where id = $1`,
    [id, ...columns.map((column) => fields[column])],
  );
}

function required<T>(value: T | null): T {
  if (value === null) throw new Error("the fixture expected a value here");
  return value;
}
