import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createFactorSecrets, createSecrets } from "@latchkey/adapters-crypto";
import { refreshTokenDigest } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import type { GotrueBatch, GotrueRow } from "../src/gotrue-source.ts";
import { importedTokenId, type MapContext, mapBatch, v2RefreshToken } from "../src/index.ts";
import { gotrueWebAuthnCredential } from "../src/testing/index.ts";

const secrets = createSecrets("an-import-test-secret-of-some-length-0123");
const ourKey = randomBytes(32);
const gotrueKey = randomBytes(32);
const context: MapContext = {
  secrets,
  factorSecrets: createFactorSecrets({ keyId: "ours", key: ourKey, decryptionKeys: new Map([["gotrue", gotrueKey]]) }),
  now: new Date("2026-11-27T00:00:00Z"),
};
const gotrueSealer = createFactorSecrets({ keyId: "gotrue", key: gotrueKey, decryptionKeys: new Map() });

const at = new Date("2026-01-01T00:00:00Z");
function user(fields: Record<string, unknown> = {}): GotrueRow {
  return {
    id: randomUUID(),
    instance_id: "00000000-0000-0000-0000-000000000000",
    aud: "authenticated",
    role: "authenticated",
    email: "ada@example.com",
    encrypted_password: "$2a$10$abcdefghijklmnopqrstuuN8vL0qU0H1d3gZ2n5m6o7p8q9r0s1t2",
    email_confirmed_at: at,
    phone: null,
    raw_app_meta_data: { provider: "email", providers: ["email"] },
    raw_user_meta_data: { name: "Ada" },
    confirmation_token: "",
    recovery_token: "",
    created_at: at,
    updated_at: at,
    is_sso_user: false,
    is_anonymous: false,
    ...fields,
  };
}
const batch = (parts: Partial<GotrueBatch>): GotrueBatch => ({
  users: [],
  identities: [],
  factors: [],
  passkeys: [],
  sessions: [],
  refreshTokens: [],
  amrClaims: [],
  ...parts,
});

describe("mapping GoTrue's rows", () => {
  it("brings a user's fields, its email and phone as Latchkey keeps them, and its identities", () => {
    const row = user({ email: "Ada@Example.com ", phone: "15550100001", phone_confirmed_at: at, banned_until: at });
    const identity = {
      id: randomUUID(),
      user_id: row["id"],
      provider: "github",
      provider_id: "123456",
      identity_data: { sub: "123456", user_name: "ada" },
      created_at: at,
      updated_at: at,
    };
    const { accounts, skipped } = mapBatch(batch({ users: [row], identities: [identity] }), context);
    expect(skipped).toEqual([]);
    expect(accounts[0]!.user).toMatchObject({
      id: row["id"],
      email: "ada@example.com",
      phone: "+15550100001",
      phoneConfirmedAt: at,
      bannedUntil: at,
      passwordHash: row["encrypted_password"],
      userMetadata: { name: "Ada" },
      identities: [{ id: identity.id, provider: "github", providerId: "123456", identityData: identity.identity_data }],
    });
  });

  it("brings a user GoTrue soft-deleted, with its digests for addresses, soft-deleted as Latchkey leaves one", () => {
    const id = randomUUID();
    const digest = (value: string) => createHash("sha256").update(`${id}${value}`).digest("base64url");
    const deletedAt = new Date("2026-02-01T00:00:00Z");
    const row = user({
      id,
      email: digest("ada@example.com"),
      phone: digest("").slice(0, 15),
      email_change: digest("ada-new@example.com"),
      phone_change: digest("").slice(0, 15),
      encrypted_password: null,
      raw_app_meta_data: {},
      raw_user_meta_data: {},
      deleted_at: deletedAt,
    });
    const identity = {
      id: randomUUID(),
      user_id: id,
      provider: "email",
      provider_id: digest(`email:${id}`),
      identity_data: {},
      created_at: at,
      updated_at: at,
    };
    const session = { id: randomUUID(), user_id: id, refresh_token_hmac_key: "a2V5", refresh_token_counter: 1 };
    const { accounts, skipped, softDeleted, dropped } = mapBatch(
      batch({ users: [row], identities: [identity], sessions: [session] }),
      context,
    );
    expect(skipped).toEqual([]);
    expect(softDeleted).toEqual([id]);
    expect(accounts[0]!.user).toMatchObject({
      id,
      deletedAt,
      email: null,
      phone: null,
      newEmail: null,
      newPhone: null,
      passwordHash: null,
      identities: [],
      emailConfirmedAt: at,
    });
    expect(accounts[0]!.sessions).toEqual([]);
    expect(dropped.endedSessions).toBe(1);
  });

  it("skips another instance's user, saying which and why", () => {
    const other = user({ instance_id: "11111111-1111-4111-8111-111111111111" });
    const legacy = user({ instance_id: null });
    const { accounts, skipped } = mapBatch(batch({ users: [other, legacy] }), context);
    expect(skipped).toEqual([
      {
        userId: other["id"],
        reason:
          "of another instance (instance_id 11111111-1111-4111-8111-111111111111): GoTrue serves only the nil instance's users",
      },
    ]);
    expect(accounts.map((account) => account.user.id)).toEqual([legacy["id"]]);
  });

  it("skips unusable numbers with why, and drops what has no place here, counted", () => {
    const badPhone = user({ email: null, phone: "12" });
    const oddHash = user({ encrypted_password: "md5$abc", confirmation_token: "pkce_abc", recovery_token: "def" });
    const { accounts, skipped, dropped } = mapBatch(batch({ users: [badPhone, oddHash] }), context);
    expect(skipped).toEqual([{ userId: badPhone["id"], reason: 'phone "12" is not an E.164 number' }]);
    expect(accounts.map((account) => account.user.passwordHash)).toEqual([null]);
    expect(dropped).toMatchObject({
      pendingTokens: 2,
      passwords: [`${oddHash["id"]}: a password hash of an unknown format`],
    });
  });

  it("makes a legacy session mid-rotation current at its newest live token, the one it replaced previous", () => {
    const row = user();
    const session = { id: randomUUID(), user_id: row["id"], aal: "aal1", created_at: at, updated_at: at };
    const token = (id: number, value: string, revoked: boolean, parent: string | null) => ({
      id: String(id),
      session_id: session.id,
      user_id: String(row["id"]),
      token: value,
      revoked,
      parent,
      created_at: new Date(at.getTime() + id * 1000),
      updated_at: new Date(at.getTime() + id * 1000),
    });
    const tokens = [token(1, "aaaaaaaaaaaa", true, null), token(2, "bbbbbbbbbbbb", true, "aaaaaaaaaaaa")];
    tokens.push(token(3, "cccccccccccc", false, "bbbbbbbbbbbb"));
    const claims = [{ id: randomUUID(), session_id: session.id, authentication_method: "password", created_at: at }];
    const { accounts } = mapBatch(
      batch({ users: [row], sessions: [session], refreshTokens: tokens, amrClaims: claims }),
      context,
    );
    const [imported] = accounts[0]!.sessions;
    expect(imported!.session).toMatchObject({
      refreshTokenId: importedTokenId("cccccccccccc"),
      previousRefreshTokenId: importedTokenId("bbbbbbbbbbbb"),
      // The reuse interval counts from the import, not from GoTrue's rotation long before.
      rotatedAt: context.now,
      amr: [{ method: "password", at }],
      aal: "aal1",
    });
    // Linked oldest first and created at the import, so that the clean-up takes the revoked ones a day after it.
    expect(imported!.refreshTokens.map((t) => [t.id, t.tokenHash, t.parentId, t.createdAt])).toEqual([
      [importedTokenId("aaaaaaaaaaaa"), refreshTokenDigest(secrets, "aaaaaaaaaaaa"), null, context.now],
      [
        importedTokenId("bbbbbbbbbbbb"),
        refreshTokenDigest(secrets, "bbbbbbbbbbbb"),
        importedTokenId("aaaaaaaaaaaa"),
        context.now,
      ],
      [
        importedTokenId("cccccccccccc"),
        refreshTokenDigest(secrets, "cccccccccccc"),
        importedTokenId("bbbbbbbbbbbb"),
        context.now,
      ],
    ]);
  });

  it("leaves a third-party OAuth client's session behind, with why: it must not become a first-party one", () => {
    const row = user();
    const clientId = randomUUID();
    const session = {
      id: randomUUID(),
      user_id: row["id"],
      aal: "aal1",
      oauth_client_id: clientId,
      created_at: at,
      updated_at: at,
    };
    const token = {
      id: "1",
      session_id: session.id,
      user_id: row["id"],
      token: "dddddddddddd",
      revoked: false,
      parent: null,
      created_at: at,
      updated_at: at,
    };
    const { accounts, dropped } = mapBatch(
      batch({ users: [row], sessions: [session], refreshTokens: [token] }),
      context,
    );
    expect(accounts[0]!.sessions).toEqual([]);
    expect(dropped.sessions).toEqual([expect.stringContaining(`held by the OAuth client ${clientId}`)]);
  });

  it("works out a v2 session's token from its key and counter, and leaves out sessions nothing can refresh", () => {
    const row = user();
    const key = randomBytes(32).toString("base64url");
    const v2 = { id: randomUUID(), user_id: row["id"], refresh_token_hmac_key: key, refresh_token_counter: 3 };
    const signedOut = { id: randomUUID(), user_id: row["id"] };
    const ended = {
      id: randomUUID(),
      user_id: row["id"],
      not_after: at,
      refresh_token_hmac_key: key,
      refresh_token_counter: 1,
    };
    const revoked = {
      id: "9",
      session_id: signedOut.id,
      token: "dddddddddddd",
      revoked: true,
      parent: null,
      created_at: at,
    };
    const { accounts, dropped } = mapBatch(
      batch({ users: [row], sessions: [v2, signedOut, ended], refreshTokens: [revoked] }),
      context,
    );
    expect(dropped.endedSessions).toBe(2);
    const [imported] = accounts[0]!.sessions;
    expect(imported!.session.refreshTokenId).toBe(importedTokenId(v2RefreshToken(v2.id, key, 3)));
    expect(imported!.refreshTokens.at(-1)!.tokenHash).toBe(refreshTokenDigest(secrets, v2RefreshToken(v2.id, key, 3)));
    expect(imported!.session.previousRefreshTokenId).toBe(importedTokenId(v2RefreshToken(v2.id, key, 2)));
  });

  it("seals a TOTP secret with this server's key, from clear or from GoTrue's sealing, and drops what it cannot open", () => {
    const row = user();
    const factor = (fields: Record<string, unknown>) => ({
      id: randomUUID(),
      user_id: row["id"],
      factor_type: "totp",
      status: "verified",
      friendly_name: "",
      created_at: at,
      updated_at: at,
      ...fields,
    });
    const clear = factor({ secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" });
    const sealedId = randomUUID();
    const sealed = factor({ id: sealedId, secret: gotrueSealer.seal(sealedId, "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU") });
    const strangerId = randomUUID();
    const stranger = createFactorSecrets({ keyId: "lost", key: randomBytes(32), decryptionKeys: new Map() });
    const unopenable = factor({ id: strangerId, secret: stranger.seal(strangerId, "ABC") });
    const webauthn = factor({ factor_type: "webauthn" });
    const { accounts, dropped } = mapBatch(
      batch({ users: [row], factors: [clear, sealed, unopenable, webauthn] }),
      context,
    );
    const factors = accounts[0]!.user.factors;
    expect(factors.map((f) => f.id)).toEqual([clear.id, sealedId]);
    expect(context.factorSecrets.open(clear.id, factors[0]!.sealedSecret!)).toBe("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP");
    expect(context.factorSecrets.open(sealedId, factors[1]!.sealedSecret!)).toBe("KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU");
    expect(JSON.parse(factors[1]!.sealedSecret!)).toMatchObject({ key_id: "ours" });
    expect(factors[0]).toMatchObject({ friendlyName: null, status: "verified", lastTotpStep: null });
    expect(dropped.factors).toEqual([
      `${strangerId}: its secret is sealed with key "lost", which SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS does not hold`,
      `${webauthn.id}: a WebAuthn factor whose credential (web_authn_credential) cannot be read`,
    ]);
  });

  it("brings a verified WebAuthn factor with its key, base64url, and drops unverified and unreadable ones", () => {
    const row = user();
    const id = randomBytes(16);
    const publicKey = randomBytes(77);
    const aaguid = Buffer.from("ea9b8d664d011d213ce4b6b48cb575d4", "hex");
    const factor = (fields: Record<string, unknown>) => ({
      id: randomUUID(),
      user_id: row["id"],
      factor_type: "webauthn",
      status: "verified",
      friendly_name: "YubiKey",
      created_at: at,
      updated_at: at,
      ...fields,
    });
    const verified = factor({
      web_authn_credential: gotrueWebAuthnCredential({ id, publicKey, aaguid, signCount: 7 }),
    });
    // go-webauthn from v0.17 writes the format apart, and leaves out what is empty; json may arrive as text.
    const newer = factor({
      web_authn_credential: JSON.stringify({
        id: randomBytes(32).toString("base64"),
        publicKey: publicKey.toString("base64"),
        attestationType: "self",
        attestationFormat: "packed",
        flags: { userPresent: true, backupEligible: true, backupState: true },
        authenticator: { AAGUID: Buffer.alloc(16).toString("base64") },
      }),
    });
    const unverified = factor({ status: "unverified", friendly_name: "" });
    const unreadable = factor({ web_authn_credential: { id: "not base64!", publicKey: "AQID" } });
    const session = { id: randomUUID(), user_id: row["id"], aal: "aal2", factor_id: verified.id };
    const sessionKey = { refresh_token_hmac_key: randomBytes(32).toString("base64url"), refresh_token_counter: 1 };
    const { accounts, dropped } = mapBatch(
      batch({
        users: [row],
        factors: [verified, newer, unverified, unreadable],
        sessions: [{ ...session, ...sessionKey }],
      }),
      context,
    );
    const factors = accounts[0]!.user.factors;
    expect(factors.map((f) => f.id)).toEqual([verified.id, newer.id]);
    expect(factors[0]).toMatchObject({
      type: "webauthn",
      status: "verified",
      friendlyName: "YubiKey",
      sealedSecret: null,
    });
    expect(factors[0]!.webauthn).toEqual({
      credentialId: id.toString("base64url"),
      publicKey: publicKey.toString("base64url"),
      signCount: 7,
      transports: ["internal"],
      aaguid: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4",
      attestationType: "none",
      backupEligible: false,
      backedUp: false,
    });
    expect(factors[1]!.webauthn).toMatchObject({
      transports: [],
      aaguid: null,
      signCount: 0,
      attestationType: "packed",
      backupEligible: true,
      backedUp: true,
    });
    expect(dropped.factors).toEqual([
      `${unverified.id}: an unverified WebAuthn factor (no credential registered yet)`,
      `${unreadable.id}: a WebAuthn factor whose credential (web_authn_credential) cannot be read`,
    ]);
    // A session GoTrue raised with the factor stays aal2 on it.
    expect(accounts[0]!.sessions[0]!.session).toMatchObject({ aal: "aal2", factorId: verified.id });
  });

  it("brings passkeys, bytes as base64url, unnamed ones without a name, and none of a soft-deleted user", () => {
    const row = user();
    const deleted = user({ email: null, deleted_at: at });
    const passkey = (userId: unknown, fields: Record<string, unknown> = {}) => ({
      id: randomUUID(),
      user_id: userId,
      credential_id: randomBytes(16),
      public_key: randomBytes(77),
      attestation_type: "none",
      aaguid: "00000000-0000-0000-0000-000000000000",
      // bigint, as node-postgres hands it over.
      sign_count: "5",
      transports: ["internal", "hybrid"],
      backup_eligible: true,
      backed_up: true,
      friendly_name: "",
      created_at: at,
      updated_at: new Date(at.getTime() + 1000),
      last_used_at: null,
      ...fields,
    });
    const unnamed = passkey(row["id"]);
    const named = passkey(row["id"], {
      friendly_name: "iCloud Keychain",
      aaguid: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd",
    });
    const empty = passkey(row["id"], { credential_id: Buffer.alloc(0) });
    const { accounts, dropped } = mapBatch(
      batch({ users: [row, deleted], passkeys: [unnamed, named, empty, passkey(deleted["id"])] }),
      context,
    );
    expect(accounts[0]!.passkeys).toEqual([
      {
        id: unnamed.id,
        userId: row["id"],
        credentialId: unnamed.credential_id.toString("base64url"),
        publicKey: unnamed.public_key.toString("base64url"),
        signCount: 5,
        transports: ["internal", "hybrid"],
        aaguid: null,
        attestationType: "none",
        backupEligible: true,
        backedUp: true,
        friendlyName: null,
        createdAt: at,
        updatedAt: unnamed.updated_at,
        lastUsedAt: null,
      },
      expect.objectContaining({ id: named.id, friendlyName: "iCloud Keychain", aaguid: named.aaguid }),
    ]);
    expect(accounts[1]!.passkeys).toEqual([]);
    expect(dropped.passkeys).toEqual([`${empty.id}: its credential id or public key is empty`]);
  });

  it("brings the amr methods of passkeys, WebAuthn factors and Web3 sign-ins, and leaves out those Latchkey does not have", () => {
    const row = user();
    const session = {
      id: randomUUID(),
      user_id: row["id"],
      refresh_token_hmac_key: randomBytes(32).toString("base64url"),
      refresh_token_counter: 0,
    };
    const claim = (method: string, seconds: number) => ({
      id: randomUUID(),
      session_id: session.id,
      authentication_method: method,
      created_at: new Date(at.getTime() + seconds * 1000),
    });
    const claims = [claim("passkey", 1), claim("mfa/webauthn", 2), claim("web3", 3), claim("token_refresh", 4)];
    const { accounts } = mapBatch(batch({ users: [row], sessions: [session], amrClaims: claims }), context);
    expect(accounts[0]!.sessions[0]!.session.amr.map((entry) => entry.method)).toEqual([
      "web3",
      "mfa/webauthn",
      "passkey",
    ]);
  });

  it("brings SAML SSO users as SSO users, with their sso:<provider> identities and sso/saml sessions, shared emails and all", () => {
    const providerId = randomUUID();
    const sso = (email: string, subject: string) =>
      user({
        email,
        is_sso_user: true,
        encrypted_password: "",
        raw_app_meta_data: { provider: `sso:${providerId}`, providers: [`sso:${providerId}`] },
        sso_subject: subject,
      });
    const first = sso("Ada@Acme.test", "subject-1");
    const second = sso("ada@acme.test", "subject-2");
    const plain = user({ email: "ada@acme.test" });
    const identities = [first, second].map((row) => ({
      id: randomUUID(),
      user_id: row["id"],
      provider: `sso:${providerId}`,
      provider_id: row["sso_subject"],
      identity_data: { sub: row["sso_subject"], email: "ada@acme.test" },
      created_at: at,
      updated_at: at,
    }));
    const session = {
      id: randomUUID(),
      user_id: first["id"],
      refresh_token_hmac_key: randomBytes(32).toString("base64url"),
      refresh_token_counter: 0,
    };
    const claims = [{ id: randomUUID(), session_id: session.id, authentication_method: "sso/saml", created_at: at }];
    const { accounts, skipped } = mapBatch(
      batch({ users: [first, second, plain], identities, sessions: [session], amrClaims: claims }),
      context,
    );
    expect(skipped).toEqual([]);
    expect(
      accounts.map(({ user: { id, email, isSsoUser, passwordHash } }) => ({ id, email, isSsoUser, passwordHash })),
    ).toEqual([
      { id: first["id"], email: "ada@acme.test", isSsoUser: true, passwordHash: null },
      { id: second["id"], email: "ada@acme.test", isSsoUser: true, passwordHash: null },
      { id: plain["id"], email: "ada@acme.test", isSsoUser: false, passwordHash: plain["encrypted_password"] },
    ]);
    expect(accounts[0]!.user.identities).toEqual([
      expect.objectContaining({ provider: `sso:${providerId}`, providerId: "subject-1", userId: first["id"] }),
    ]);
    expect(accounts[0]!.sessions[0]!.session.amr).toEqual([{ method: "sso/saml", at }]);
  });
});
