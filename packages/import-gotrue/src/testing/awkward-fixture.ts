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
  /** is_sso_user, with the same email as `withPassword` (SSO users may share one): the importer skips it. */
  readonly sso: { readonly id: string; readonly email: string };
  /** A user of another (legacy) instance: GoTrue ignores it; the importer skips it, saying so. */
  readonly otherInstance: FixtureAccount & { readonly instanceId: string };
  readonly auditEntryIds: readonly string[];
}

const DAY_MS = 86_400_000;
const EMAIL_APP_METADATA = { provider: "email", providers: ["email"] };
const PHONE_APP_METADATA = { provider: "phone", providers: ["phone"] };

/** The awkward fixture the importer's tests and the e2e test use: every kind of row, and what a client would hold. */
export async function seedAwkwardFixture(
  db: GotrueDatabase,
  options: { encryptionKey?: { id: string; keyBase64Url: string } } = {},
): Promise<AwkwardFixture> {
  const key = options.encryptionKey;
  const seal = (rowId: string, value: string) => (key ? gotrueSealedSecret(rowId, value, key) : value);
  const now = Date.now();
  const ago = (ms: number) => new Date(now - ms);
  // Users created a minute apart over the last month, so that any ordering by created_at is deterministic.
  let created = 0;
  const nextCreatedAt = () => new Date(now - 30 * DAY_MS + created++ * 60_000);

  const emailAccount = async (
    name: string,
    fields: Partial<Omit<GotrueUser, "confirmed_at">> = {},
    { hasher = gotrueBcrypt, confirmed = true } = {},
  ): Promise<FixtureAccount> => {
    const id = randomUUID();
    const email = `${name}@example.com`;
    const password = `${name} correct horse`;
    const at = nextCreatedAt();
    const identityData = { sub: id, email, email_verified: confirmed, phone_verified: false };
    await db.insertUser({
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
    await db.insertIdentity({
      user_id: id,
      provider: "email",
      provider_id: id,
      identity_data: identityData,
      created_at: at,
      updated_at: at,
      last_sign_in_at: confirmed ? at : null,
    });
    return { id, email, password };
  };

  const phoneAccount = async (phone: string, fields: Partial<Omit<GotrueUser, "confirmed_at">> = {}) => {
    const id = randomUUID();
    const password = `${phone} correct horse`;
    const at = nextCreatedAt();
    const identityData = { sub: id, phone, email_verified: false, phone_verified: true };
    await db.insertUser({
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
    await db.insertIdentity({
      user_id: id,
      provider: "phone",
      provider_id: id,
      identity_data: identityData,
      created_at: at,
      updated_at: at,
      last_sign_in_at: at,
    });
    return { id, phone, password };
  };

  const pendingToken = async (userId: string, tokenType: OneTimeTokenType, relatesTo: string, otp: string) => {
    const tokenHash = gotrueTokenHash(relatesTo, otp);
    await db.insertOneTimeToken({
      user_id: userId,
      token_type: tokenType,
      token_hash: tokenHash,
      relates_to: relatesTo,
    });
    return tokenHash;
  };

  const signIn = async (
    userId: string,
    methods: readonly string[],
    fields: Partial<GotrueSession> = {},
  ): Promise<GotrueSession> => {
    const session = await db.insertSession({
      user_id: userId,
      created_at: ago(2 * 3_600_000),
      updated_at: ago(600_000),
      refreshed_at: ago(600_000),
      user_agent: "supabase-js/2.x node",
      ip: "203.0.113.7",
      ...fields,
    });
    for (const method of methods) {
      await db.insertAmrClaim({ session_id: session.id, authentication_method: method });
    }
    await db.client.query(`update ${quote(db.schema)}.users set last_sign_in_at = $2 where id = $1`, [
      userId,
      session.created_at,
    ]);
    return session;
  };

  const withPassword = await emailAccount("with-password");
  const withArgon2Password = await emailAccount("with-argon2-password", {}, { hasher: gotrueArgon2 });
  const phoneOnly = await phoneAccount("15550100001");

  const deletedEmail = "soft-deleted@example.com";
  const softDeletedAccount = await emailAccount("soft-deleted", {
    email_change: "soft-deleted-new@example.com",
    email_change_sent_at: ago(DAY_MS),
  });
  const deletedSession = await signIn(softDeletedAccount.id, ["password"]);
  await db.insertRefreshToken({ session_id: deletedSession.id, user_id: softDeletedAccount.id });
  await db.insertFactor({ user_id: softDeletedAccount.id, secret: gotrueTotpSecret() });
  const softDeletedStored = {
    storedEmail: obfuscate(softDeletedAccount.id, deletedEmail),
    storedPhone: obfuscatePhone(softDeletedAccount.id, ""),
    storedEmailChange: obfuscate(softDeletedAccount.id, "soft-deleted-new@example.com"),
    storedPhoneChange: obfuscatePhone(softDeletedAccount.id, ""),
  };
  await db.client.query(
    `update ${quote(db.schema)}.users set email = $2, phone = $3, email_change = $4, phone_change = $5,
       encrypted_password = null, confirmation_token = '', recovery_token = '', email_change_token_current = '',
       email_change_token_new = '', phone_change_token = '', raw_app_meta_data = '{}', raw_user_meta_data = '{}',
       deleted_at = now() where id = $1`,
    [
      softDeletedAccount.id,
      softDeletedStored.storedEmail,
      softDeletedStored.storedPhone,
      softDeletedStored.storedEmailChange,
      softDeletedStored.storedPhoneChange,
    ],
  );
  await db.client.query(
    `update ${quote(db.schema)}.identities set identity_data = '{}', provider_id = $2 where user_id = $1`,
    [softDeletedAccount.id, obfuscate(softDeletedAccount.id, `email:${softDeletedAccount.id}`)],
  );
  for (const table of ["sessions", "mfa_factors"]) {
    await db.client.query(`delete from ${quote(db.schema)}.${table} where user_id = $1`, [softDeletedAccount.id]);
  }

  const bannedUntil = new Date(now + 876_000 * 3_600_000);
  const banned = { ...(await emailAccount("banned", { banned_until: bannedUntil })), bannedUntil };

  const anonymousId = randomUUID();
  await db.insertUser({ id: anonymousId, is_anonymous: true, created_at: nextCreatedAt() });
  const anonymousSession = await signIn(anonymousId, ["anonymous"]);
  const anonymousToken = await db.insertRefreshToken({ session_id: anonymousSession.id, user_id: anonymousId });

  const invitedOtp = randomOtp();
  const invitedAccount = await emailAccount(
    "invited",
    { encrypted_password: "", invited_at: ago(DAY_MS), confirmation_sent_at: ago(DAY_MS) },
    { confirmed: false },
  );
  const invitedHash = await pendingToken(invitedAccount.id, "confirmation_token", invitedAccount.email, invitedOtp);
  await setUser(db, invitedAccount.id, { confirmation_token: invitedHash });

  const unconfirmedOtp = randomOtp();
  const unconfirmedAccount = await emailAccount(
    "unconfirmed",
    { confirmation_sent_at: ago(300_000) },
    { confirmed: false },
  );
  const unconfirmedHash = await pendingToken(
    unconfirmedAccount.id,
    "confirmation_token",
    unconfirmedAccount.email,
    unconfirmedOtp,
  );
  await setUser(db, unconfirmedAccount.id, { confirmation_token: unconfirmedHash });

  const newEmail = "changed-email@example.com";
  const otpNew = randomOtp();
  const otpCurrent = randomOtp();
  const emailChanger = await emailAccount("pending-email-change", {
    email_change: newEmail,
    email_change_sent_at: ago(120_000),
  });
  await setUser(db, emailChanger.id, {
    email_change_token_new: await pendingToken(emailChanger.id, "email_change_token_new", newEmail, otpNew),
    email_change_token_current: await pendingToken(
      emailChanger.id,
      "email_change_token_current",
      emailChanger.email,
      otpCurrent,
    ),
  });

  const newPhone = "15550100003";
  const phoneChangeOtp = randomOtp();
  const phoneChanger = await phoneAccount("15550100002", { phone_change: newPhone, phone_change_sent_at: ago(60_000) });
  await setUser(db, phoneChanger.id, {
    phone_change_token: await pendingToken(phoneChanger.id, "phone_change_token", newPhone, phoneChangeOtp),
  });

  const recoveryOtp = randomOtp();
  const recoveryAccount = await emailAccount("pending-recovery", { recovery_sent_at: ago(240_000) });
  const recoveryHash = await pendingToken(recoveryAccount.id, "recovery_token", recoveryAccount.email, recoveryOtp);
  await setUser(db, recoveryAccount.id, { recovery_token: recoveryHash });

  // The columns of GoTrue's first migration have no default, so a row inserted in SQL leaves them NULL.
  const nullTokensPassword = "null-tokens correct horse";
  const nullTokensAt = nextCreatedAt();
  const nullTokensUser = await db.insertUser({
    email: "null-tokens@example.com",
    encrypted_password: await gotrueBcrypt(nullTokensPassword),
    email_confirmed_at: nullTokensAt,
    confirmation_token: null,
    recovery_token: null,
    email_change_token_new: null,
    email_change: null,
    raw_app_meta_data: EMAIL_APP_METADATA,
    created_at: nullTokensAt,
    updated_at: nullTokensAt,
  });

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
  const oauthCreatedAt = nextCreatedAt();
  const oauthUser = await db.insertUser({
    email: githubData.email.toLowerCase(),
    email_confirmed_at: oauthCreatedAt,
    raw_app_meta_data: { provider: "github", providers: ["github"] },
    raw_user_meta_data: githubData,
    created_at: oauthCreatedAt,
    updated_at: oauthCreatedAt,
  });
  await db.insertIdentity({
    user_id: oauthUser.id,
    provider: "github",
    provider_id: githubId,
    identity_data: githubData,
    last_sign_in_at: oauthCreatedAt,
    created_at: oauthCreatedAt,
    updated_at: oauthCreatedAt,
  });

  const sessionAccount = await emailAccount("with-session");
  const session = await signIn(sessionAccount.id, ["password"]);
  const chain = { session_id: session.id, user_id: sessionAccount.id };
  const root = await db.insertRefreshToken({ ...chain, revoked: true, created_at: ago(2 * 3_600_000) });
  const parent = await db.insertRefreshToken({
    ...chain,
    revoked: true,
    parent: root.token,
    created_at: ago(3_600_000),
  });
  const live = await db.insertRefreshToken({ ...chain, parent: parent.token, created_at: ago(600_000) });

  const v2Account = await emailAccount("with-v2-session");
  const hmacKey = gotrueRefreshTokenHmacKey();
  const v2SessionId = randomUUID();
  const counter = 3;
  const v2Session = await signIn(v2Account.id, ["password"], {
    id: v2SessionId,
    refresh_token_hmac_key: seal(v2SessionId, hmacKey),
    refresh_token_counter: counter,
  });
  const upgradedFrom = await db.insertRefreshToken({
    session_id: v2Session.id,
    user_id: v2Account.id,
    revoked: true,
    created_at: ago(2 * 3_600_000),
  });

  const oneBehindAccount = await emailAccount("one-behind");
  const oneBehindKey = gotrueRefreshTokenHmacKey();
  const oneBehindSessionId = randomUUID();
  await signIn(oneBehindAccount.id, ["password"], {
    id: oneBehindSessionId,
    refresh_token_hmac_key: seal(oneBehindSessionId, oneBehindKey),
    refresh_token_counter: 5,
  });

  const factorAccount = await emailAccount("with-factor");
  const factorId = randomUUID();
  const totpSecret = gotrueTotpSecret();
  await db.insertFactor({
    id: factorId,
    user_id: factorAccount.id,
    friendly_name: "Authenticator app",
    secret: seal(factorId, totpSecret),
    last_challenged_at: ago(2 * 3_600_000),
  });
  await db.insertChallenge({ factor_id: factorId, created_at: ago(2 * 3_600_000), verified_at: ago(2 * 3_600_000) });
  const aal2Session = await signIn(factorAccount.id, ["password", "totp"], { aal: "aal2", factor_id: factorId });
  const aal2Token = await db.insertRefreshToken({ session_id: aal2Session.id, user_id: factorAccount.id });

  const phoneFactorAccount = await emailAccount("with-phone-factor");
  const factorPhone = "15550100009";
  const phoneFactor = await db.insertFactor({
    user_id: phoneFactorAccount.id,
    friendly_name: "My phone",
    factor_type: "phone",
    phone: factorPhone,
    last_challenged_at: ago(30_000),
  });
  const challengeId = randomUUID();
  const challengeOtp = randomOtp();
  await db.insertChallenge({
    id: challengeId,
    factor_id: phoneFactor.id,
    created_at: ago(30_000),
    otp_code: seal(challengeId, challengeOtp),
  });

  const ssoProviderId = randomUUID();
  const ssoCreatedAt = nextCreatedAt();
  const ssoUser = await db.insertUser({
    email: withPassword.email,
    is_sso_user: true,
    email_confirmed_at: ssoCreatedAt,
    raw_app_meta_data: { provider: `sso:${ssoProviderId}`, providers: [`sso:${ssoProviderId}`] },
    created_at: ssoCreatedAt,
    updated_at: ssoCreatedAt,
  });
  await db.insertIdentity({
    user_id: ssoUser.id,
    provider: `sso:${ssoProviderId}`,
    provider_id: "saml-subject-1",
    identity_data: { sub: "saml-subject-1", email: withPassword.email, email_verified: true },
    created_at: ssoCreatedAt,
    updated_at: ssoCreatedAt,
  });

  const instanceId = "11111111-1111-4111-8111-111111111111";
  const otherInstance = { ...(await emailAccount("other-instance", { instance_id: instanceId })), instanceId };

  const audit = (action: string, logType: string, actor: FixtureAccount, extra: Json = {}, ip = "") =>
    db.insertAuditEntry({
      payload: {
        action,
        actor_id: actor.id,
        actor_username: actor.email,
        actor_via_sso: false,
        log_type: logType,
        ...extra,
      },
      ip_address: ip,
      created_at: ago(DAY_MS),
    });
  const auditEntries = [
    await audit("user_signedup", "team", withPassword, { traits: { provider: "email" } }),
    await audit("login", "account", withPassword, { traits: { provider: "email" } }, "203.0.113.7"),
    await audit("token_refreshed", "token", sessionAccount),
    await audit("token_revoked", "token", sessionAccount),
  ];

  return {
    withPassword,
    withArgon2Password,
    phoneOnly,
    softDeleted: { ...softDeletedAccount, ...softDeletedStored },
    oneBehind: {
      ...oneBehindAccount,
      sessionId: oneBehindSessionId,
      heldToken: gotrueV2RefreshToken(oneBehindSessionId, oneBehindKey, 4),
      newestToken: gotrueV2RefreshToken(oneBehindSessionId, oneBehindKey, 5),
    },
    banned,
    anonymous: { id: anonymousId, sessionId: anonymousSession.id, refreshToken: required(anonymousToken.token) },
    invited: { id: invitedAccount.id, email: invitedAccount.email, otp: invitedOtp, tokenHash: invitedHash },
    unconfirmed: { ...unconfirmedAccount, otp: unconfirmedOtp, tokenHash: unconfirmedHash },
    pendingEmailChange: { ...emailChanger, newEmail, otpNew, otpCurrent },
    pendingPhoneChange: { ...phoneChanger, newPhone, otp: phoneChangeOtp },
    pendingRecovery: { ...recoveryAccount, otp: recoveryOtp, tokenHash: recoveryHash },
    nullTokens: { id: nullTokensUser.id, email: required(nullTokensUser.email), password: nullTokensPassword },
    oauthOnly: { id: oauthUser.id, email: required(oauthUser.email), provider: "github", providerId: githubId },
    withSession: {
      ...sessionAccount,
      sessionId: session.id,
      refreshToken: required(live.token),
      parentToken: required(parent.token),
      rootToken: required(root.token),
    },
    withV2Session: {
      ...v2Account,
      sessionId: v2SessionId,
      hmacKey,
      hmacKeySealed: key !== undefined,
      counter,
      refreshToken: gotrueV2RefreshToken(v2SessionId, hmacKey, counter),
      upgradedFromToken: required(upgradedFrom.token),
    },
    withFactor: {
      userId: factorAccount.id,
      factorId,
      secret: totpSecret,
      secretSealed: key !== undefined,
      email: factorAccount.email,
      password: factorAccount.password,
      sessionId: aal2Session.id,
      refreshToken: required(aal2Token.token),
    },
    withPhoneFactor: {
      ...phoneFactorAccount,
      factorId: phoneFactor.id,
      phone: factorPhone,
      challengeId,
      otp: challengeOtp,
    },
    sso: { id: ssoUser.id, email: withPassword.email },
    otherInstance,
    auditEntryIds: auditEntries.map((entry) => entry.id),
  };
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
