import { randomBytes } from "node:crypto";
import { missingPostgresServer } from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable, totpCode, totpStep } from "@latchkey/domain/testing";
import {
  type AwkwardFixture,
  createGotrueDatabase,
  type GotrueDatabase,
  seedAwkwardFixture,
} from "@latchkey/import-gotrue/testing";
import {
  databaseUrl,
  REQUIRED_SETTINGS,
  run,
  startTestServer,
  TEST_JWT_SECRET,
  type TestServer,
  tempDir,
} from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import ws from "ws";
import { SoftwareAuthenticator } from "../support/software-authenticator.ts";
import { adminApi, anonKey, claimsOf, client, memoryStorage, serviceRoleKey } from "./support.ts";

// The relying party of GoTrue and of Latchkey after it: the same, so that the credentials keep working.
const RP_ID = "localhost";
const ORIGIN = "http://localhost:5173";
const WEBAUTHN_SETTINGS = {
  AUTH_PASSKEY_ENABLED: "true",
  AUTH_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
  AUTH_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
  AUTH_WEBAUTHN_RP_ID: RP_ID,
  AUTH_WEBAUTHN_RP_DISPLAY_NAME: "Latchkey tests",
  AUTH_WEBAUTHN_RP_ORIGINS: ORIGIN,
};

/**
 * A credential the authenticator registered with GoTrue for the user (its user handle the UTF-8 of the user id, as
 * GoTrue's): its bytes, for the fixture's GoTrue rows.
 */
function registeredWith(authenticator: SoftwareAuthenticator, userId: string) {
  authenticator.create({
    challenge: Buffer.from("a GoTrue registration").toString("base64url"),
    rp: { id: RP_ID, name: "GoTrue" },
    user: { id: Buffer.from(userId, "utf8").toString("base64url") },
    pubKeyCredParams: [{ alg: -7, type: "public-key" }],
  });
  const { id, publicKey } = authenticator.credential;
  return { id: Buffer.from(id, "base64url"), publicKey };
}

/** Options as the client deserialized them (ArrayBuffers), back to JSON for the software authenticator. */
function asJson(value: unknown): unknown {
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString("base64url");
  if (ArrayBuffer.isView(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64url");
  }
  if (Array.isArray(value)) return value.map(asJson);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, asJson(each)]));
  }
  return value;
}

// A GoTrue database built from the schema facts, with every kind of row, imported by the real binary into the
// database a running server uses; then the official clients do what apps did against GoTrue.
// GoTrue's database is a PostgreSQL server's: the importer reads it over a connection.
describeIfAvailable(missingPostgresServer(), "moving from Supabase Auth with `latchkey import gotrue`", () => {
  const gotrueKey = { id: "gotrue-key", keyBase64Url: randomBytes(32).toString("base64url") };
  let gotrue: GotrueDatabase;
  let fixture: AwkwardFixture;
  let server: TestServer;
  let env: Record<string, string>;
  let firstRun: { exitCode: number | null; stdout: string; stderr: string };
  // One for the passkey, one for the WebAuthn factor's key: a passkey sign-in asks for no credential in particular.
  const passkeyAuthenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
  const keyAuthenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });

  const importOnce = async (...extra: string[]) => {
    const result = run(["import", "gotrue", "--from", gotrue.url, ...extra], env, tempDir());
    const exitCode = await result.exited;
    return { exitCode, ...result.output() };
  };

  beforeAll(async () => {
    gotrue = await createGotrueDatabase({ adminUrl: databaseUrl! });
    fixture = await seedAwkwardFixture(gotrue, {
      encryptionKey: gotrueKey,
      credential: (userId, use) => registeredWith(use === "passkey" ? passkeyAuthenticator : keyAuthenticator, userId),
    });
    // GoTrue's key, under the names GoTrue reads too: its sealed TOTP secrets and refresh keys open with it.
    const keys = { AUTH_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `${gotrueKey.id}:${gotrueKey.keyBase64Url}` };
    // A reuse interval the import and the one-behind test fit in, however slow the machine.
    const interval = { AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "120" };
    server = await startTestServer({
      ...keys,
      ...interval,
      ...WEBAUTHN_SETTINGS,
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
    });
    env = {
      PATH: process.env["PATH"] ?? "",
      DATABASE_URL: databaseUrl!,
      ...REQUIRED_SETTINGS,
      ...keys,
      AUTH_DB_NAMESPACE: server.config.db.namespace,
    };
    firstRun = await importOnce();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await gotrue?.drop();
  });

  it("ends with a summary: counts, each user skipped and why, and what was left behind", () => {
    expect(firstRun.exitCode, firstRun.stderr).toBe(0);
    expect(firstRun.stdout).toMatch(/^ {2}users: \d+ written$/m);
    expect(firstRun.stdout).toMatch(/^ {2}SSO providers: 2 written$/m);
    expect(firstRun.stdout).not.toContain(fixture.sso.id);
    expect(firstRun.stdout).toMatch(/Dropped \d+ pending links and codes/);
    expect(firstRun.stdout).toContain(
      `${fixture.otherInstance.id}: of another instance (instance_id ${fixture.otherInstance.instanceId}): GoTrue serves only the nil instance's users`,
    );
    expect(firstRun.stdout).toContain("Soft-deleted in GoTrue, and here too: 1 user");
    expect(firstRun.stdout).not.toContain(fixture.withPassword.password);
    expect(firstRun.stdout).toMatch(/^ {2}passkeys: 1 written$/m);
    expect(firstRun.stdout).toContain(
      `  ${fixture.withWebAuthn.unverifiedFactorId}: an unverified WebAuthn factor (no credential registered yet)`,
    );
  });

  it("signs in with a passkey registered with GoTrue, through supabase-js, with no password", async () => {
    const app = createClient(server.url, await anonKey(), {
      auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false },
      realtime: { transport: ws as never },
    });
    const { data: options, error } = await app.auth.passkey.startAuthentication();
    expect(error).toBeNull();
    const assertion = passkeyAuthenticator.get(options!.options as never);
    const signedIn = await app.auth.passkey.verifyAuthentication({
      challengeId: options!.challenge_id,
      credential: assertion as never,
    });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data!.user!.id).toBe(fixture.withWebAuthn.id);
    const amr = claimsOf(signedIn.data!.session!.access_token)["amr"] as { method: string }[];
    expect(amr[0]?.method).toBe("passkey");
    const { data: listed } = await app.auth.passkey.list();
    expect(listed?.map((passkey) => passkey.id)).toEqual([fixture.withWebAuthn.passkeyId]);
  });

  it("steps up to aal2 with a WebAuthn factor registered with GoTrue", async () => {
    const app = createClient(server.url, await anonKey(), {
      auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false },
      realtime: { transport: ws as never },
    });
    const { withWebAuthn } = fixture;
    expect((await app.auth.signInWithPassword(withWebAuthn)).error).toBeNull();
    const challenge = await app.auth.mfa.challenge({ factorId: withWebAuthn.factorId });
    expect(challenge.data).toMatchObject({ type: "webauthn", webauthn: { type: "request" } });
    const { publicKey } = (challenge.data as unknown as { webauthn: { credential_options: { publicKey: unknown } } })
      .webauthn.credential_options;
    const answer = keyAuthenticator.get(asJson(publicKey) as never);
    const verified = await app.auth.mfa.verify({
      factorId: withWebAuthn.factorId,
      challengeId: challenge.data!.id,
      webauthn: { type: "request", rpId: RP_ID, rpOrigins: [ORIGIN], credential_response: { toJSON: () => answer } },
    } as never);
    expect(verified.error).toBeNull();
    expect(claimsOf(verified.data!.access_token)).toMatchObject({ aal: "aal2" });
  });

  it("keeps the session of a client one token behind right after the import, whose last answer was lost", async () => {
    // GoTrue rotated the session ten minutes before the import; the interval counts from the import.
    const { heldToken, sessionId, id } = fixture.oneBehind;
    const answered = await client(server).refreshSession({ refresh_token: heldToken });
    expect(answered.error).toBeNull();
    expect(claimsOf(answered.data.session!.access_token)["session_id"]).toBe(sessionId);
    // Its retry gets the same answer, and that answer refreshes as any token does.
    const retried = await client(server).refreshSession({ refresh_token: heldToken });
    expect(retried.data.session?.refresh_token).toBe(answered.data.session!.refresh_token);
    const next = await client(server).refreshSession({ refresh_token: answered.data.session!.refresh_token });
    expect(next.error).toBeNull();
    expect(next.data.user?.id).toBe(id);
  });

  it("signs in with the imported bcrypt and argon2 passwords", async () => {
    for (const account of [fixture.withPassword, fixture.withArgon2Password]) {
      const { data, error } = await client(server).signInWithPassword(account);
      expect(error).toBeNull();
      expect(data.user?.id).toBe(account.id);
    }
    const phone = await client(server).signInWithPassword({
      phone: fixture.phoneOnly.phone,
      password: fixture.phoneOnly.password,
    });
    expect(phone.error).toBeNull();
    expect(phone.data.user?.phone).toBe(`+${fixture.phoneOnly.phone}`);
  });

  it("refreshes the token a client held, mid-rotation, and treats an older one as reuse", async () => {
    const auth = client(server);
    const refreshed = await auth.refreshSession({ refresh_token: fixture.withSession.refreshToken });
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.user?.id).toBe(fixture.withSession.id);
    expect(claimsOf(refreshed.data.session!.access_token)["session_id"]).toBe(fixture.withSession.sessionId);
    const replayed = await client(server).refreshSession({ refresh_token: fixture.withSession.rootToken });
    expect(replayed.error?.code).toBe("refresh_token_already_used");
  });

  it("accepts an access token GoTrue issued before the move, signed with the same JWT_SECRET", async () => {
    const { id, email, sessionId } = fixture.withV2Session;
    // GoTrue's claims (gotrue-contract.md §7.1), as a client still holds them.
    const gotrueToken = await new SignJWT({
      aud: "authenticated",
      sub: id,
      email,
      phone: "",
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: {},
      role: "authenticated",
      aal: "aal1",
      amr: [{ method: "password", timestamp: Math.floor(Date.now() / 1000) - 60 }],
      session_id: sessionId,
      is_anonymous: false,
    })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("https://project.supabase.co/auth/v1")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const auth = client(server);
    const { data, error } = await auth.getUser(gotrueToken);
    expect(error).toBeNull();
    expect(data.user?.id).toBe(id);
  });

  it("refreshes a v2 session's token and an anonymous user's", async () => {
    for (const [token, userId] of [
      [fixture.withV2Session.refreshToken, fixture.withV2Session.id],
      [fixture.anonymous.refreshToken, fixture.anonymous.id],
    ] as const) {
      const { data, error } = await client(server).refreshSession({ refresh_token: token });
      expect(error).toBeNull();
      expect(data.user?.id).toBe(userId);
    }
  });

  it("keeps an OAuth-only user's identity, a ban, and the soft-deleted and invited users", async () => {
    const admin = await adminApi(server);
    const oauth = await admin.getUserById(fixture.oauthOnly.id);
    expect(oauth.data.user?.identities?.map((identity) => [identity.provider, identity.id])).toEqual([
      ["github", fixture.oauthOnly.providerId],
    ]);
    const banned = await client(server).signInWithPassword(fixture.banned);
    expect(banned.error?.code).toBe("user_banned");
    expect((await admin.getUserById(fixture.invited.id)).data.user?.invited_at).toBeTruthy();
  });

  it("brings GoTrue's soft-deleted user soft-deleted: it cannot sign in, and its address is free, as in GoTrue", async () => {
    const { softDeleted } = fixture;
    const signIn = await client(server).signInWithPassword(softDeleted);
    expect(signIn.error?.code).toBe("invalid_credentials");
    const admin = await adminApi(server);
    const created = await admin.createUser({ email: softDeleted.email, password: softDeleted.password });
    expect(created.error).toBeNull();
    expect(created.data.user?.id).not.toBe(softDeleted.id);
  });

  it("verifies a TOTP code against the imported secret, with supabase-js as apps use it", async () => {
    const supabase = createClient(server.url, "anon-key-placeholder", {
      auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false },
      realtime: { transport: ws as never },
    });
    const signIn = await supabase.auth.signInWithPassword(fixture.withFactor);
    expect(signIn.error).toBeNull();
    const factors = await supabase.auth.mfa.listFactors();
    expect(factors.data?.totp.map((factor) => factor.id)).toEqual([fixture.withFactor.factorId]);
    const verified = await supabase.auth.mfa.challengeAndVerify({
      factorId: fixture.withFactor.factorId,
      code: totpCode(fixture.withFactor.secret, totpStep(new Date())),
    });
    expect(verified.error).toBeNull();
    expect(claimsOf(verified.data!.access_token)["aal"]).toBe("aal2");
    // The session that was aal2 in GoTrue refreshes as aal2.
    const aal2 = await client(server).refreshSession({ refresh_token: fixture.withFactor.refreshToken });
    expect(aal2.error).toBeNull();
    expect(claimsOf(aal2.data.session!.access_token)["aal"]).toBe("aal2");
  });

  it("brings the SSO providers with their domains, and the SSO users with their identities and sessions", async () => {
    const { sso } = fixture;
    const headers = { authorization: `Bearer ${await serviceRoleKey()}` };
    const listed = await server.fetch("/admin/sso/providers", { headers });
    expect(listed.status).toBe(200);
    const { items } = (await listed.json()) as { items: { id: string }[] };
    expect(items.map((item) => item.id)).toEqual([sso.provider.id, sso.disabledProvider.id]);
    expect(items[0]).toEqual({
      id: sso.provider.id,
      resource_id: sso.provider.resourceId,
      disabled: null,
      saml: {
        entity_id: sso.provider.entityId,
        attribute_mapping: sso.provider.attributeMapping,
        name_id_format: sso.provider.nameIdFormat,
      },
      domains: [{ domain: "acme.test" }, { domain: "corp.acme.test" }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(items[1]).toMatchObject({ disabled: true, domains: [] });
    // The metadata byte for byte, as GoTrue kept it (not fetched again).
    const one = await server.fetch(`/admin/sso/providers/${sso.provider.id}`, { headers });
    expect(((await one.json()) as { saml: { metadata_xml: string } }).saml.metadata_xml).toBe(sso.provider.metadataXml);

    // SSO users, the one of a provider GoTrue deleted too; GoTrue's JSON has no is_sso_user, so the store says.
    for (const id of [sso.id, sso.sameEmailId, sso.orphanId]) {
      expect(await server.db.stores.users.findById(id)).toMatchObject({ id, isSsoUser: true });
    }
    const admin = await adminApi(server);
    const { data } = await admin.getUserById(sso.id);
    expect(data.user?.email).toBe(fixture.withPassword.email);
    expect(data.user?.app_metadata).toMatchObject({ provider: `sso:${sso.provider.id}` });
    expect(data.user?.identities?.map((identity) => [identity.provider, identity.id])).toEqual([
      [`sso:${sso.provider.id}`, sso.subject],
    ]);
    // The password user of the same email is still the one a password signs in.
    expect((await client(server).signInWithPassword(fixture.withPassword)).data.user?.id).toBe(fixture.withPassword.id);
    // Its session refreshes, with the amr GoTrue gave it, naming the provider.
    const refreshed = await client(server).refreshSession({ refresh_token: sso.refreshToken });
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.user?.id).toBe(sso.id);
    const amr = claimsOf(refreshed.data.session!.access_token)["amr"] as { method: string; provider?: string }[];
    expect(amr).toEqual([expect.objectContaining({ method: "sso/saml", provider: sso.provider.id })]);
  });

  it("runs again without duplicating anything, and a dry run writes nothing", async () => {
    const count = () => server.db.db.$count(server.db.schema.users);
    const before = await count();
    const again = await importOnce("--audit");
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await count()).toEqual(before);
    // The audit log came along this time, once.
    expect(again.stdout).toContain(`audit log entries: ${fixture.auditEntryIds.length} written`);
    expect(again.stdout).toContain("  SSO providers: 0 written, 2 already here (left as they are)");
    expect((await importOnce("--audit")).stdout).toContain("audit log entries: 0 written");
    const audit = await server.fetch("/admin/audit?per_page=100", {
      headers: { authorization: `Bearer ${await serviceRoleKey()}` },
    });
    const ids = ((await audit.json()) as { id: string }[]).map((entry) => entry.id);
    expect(ids).toEqual(expect.arrayContaining([...fixture.auditEntryIds]));
    const dry = await importOnce("--dry-run");
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^Dry run: nothing was written\./);
    expect(dry.stdout).toContain("  SSO providers: 0 would be written, 2 already here (left as they are)");
    expect(await count()).toEqual(before);
  });
});
