import { createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomUUID } from "node:crypto";
import { createFactorSecrets } from "@latchkey/adapters-crypto";
import { missingPostgresServer, testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { verify as verifyArgon2 } from "@node-rs/argon2";
import { verify as verifyBcrypt } from "@node-rs/bcrypt";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AwkwardFixture,
  createGotrueDatabase,
  type GotrueDatabase,
  gotrueSealedSecret,
  gotrueTokenHash,
  gotrueV2RefreshToken,
  NIL_UUID,
  seedAwkwardFixture,
  seedManyUsers,
} from "../src/testing/index.ts";

const adminUrl = testDatabaseUrl();
const encryptionKey = { id: "key-1", keyBase64Url: randomBytes(32).toString("base64url") };

function decodeV2(token: string) {
  const raw = Buffer.from(token, "base64url");
  const body = raw.subarray(0, raw.length - 4);
  let counter = 0;
  let shift = 0;
  let offset = 17;
  for (;;) {
    const byte = raw[offset++] ?? 0;
    counter += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) break;
  }
  return {
    version: raw[0],
    sessionId: raw.subarray(1, 17).toString("hex"),
    counter,
    signedPart: body.subarray(0, offset),
    signature: body.subarray(offset),
    checksum: raw.subarray(raw.length - 4),
    body,
  };
}

// keys-otel-captcha-mfa.md D.6, step by step with node:crypto.
function openAsD6Says(sealed: string, rowId: string, keyBase64Url: string): string {
  const { data, nonce } = JSON.parse(sealed) as { data: string; nonce: string };
  const key = Buffer.from(hkdfSync("sha256", Buffer.from(keyBase64Url, "base64url"), Buffer.alloc(0), rowId, 32));
  const bytes = Buffer.from(data, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
}

describe("gotrueV2RefreshToken", () => {
  const sessionId = randomUUID();
  const hmacKey = randomBytes(32).toString("base64url");

  it.each([0, 3, 127, 128, 300, 2 ** 40])("encodes version 0, the session, counter %d, signature and checksum", (n) => {
    const token = gotrueV2RefreshToken(sessionId, hmacKey, n);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const decoded = decodeV2(token);
    expect(decoded.version).toBe(0);
    expect(decoded.sessionId).toBe(sessionId.replaceAll("-", ""));
    expect(decoded.counter).toBe(n);
    expect(decoded.signature).toEqual(
      createHmac("sha256", Buffer.from(hmacKey, "base64url")).update(decoded.signedPart).digest().subarray(0, 16),
    );
    expect(decoded.checksum).toEqual(createHash("sha256").update(decoded.body).digest().subarray(0, 4));
  });

  it("is as long as §7.3 says for small counters", () => {
    expect(gotrueV2RefreshToken(sessionId, hmacKey, 3)).toHaveLength(51);
  });
});

describe("gotrueSealedSecret", () => {
  const factorId = randomUUID();
  const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

  it("writes GoTrue's JSON fields, and opens with node:crypto as D.6 describes", () => {
    const sealed = gotrueSealedSecret(factorId, secret, encryptionKey);
    const fields = JSON.parse(sealed) as Record<string, string>;
    expect(Object.keys(fields)).toEqual(["key_id", "alg", "data", "nonce"]);
    expect(fields).toMatchObject({ key_id: "key-1", alg: "aes-gcm-hkdf" });
    expect(Buffer.from(fields["nonce"] ?? "", "base64")).toHaveLength(12);
    expect(openAsD6Says(sealed, factorId, encryptionKey.keyBase64Url)).toBe(secret);
  });

  it("opens with Latchkey's own reader given the key as a decryption key", () => {
    const sealed = gotrueSealedSecret(factorId, secret, encryptionKey);
    const secrets = createFactorSecrets({
      keyId: "latchkey-current",
      key: randomBytes(32),
      decryptionKeys: new Map([[encryptionKey.id, Buffer.from(encryptionKey.keyBase64Url, "base64url")]]),
    });
    expect(secrets.open(factorId, sealed)).toBe(secret);
    expect(() => secrets.open(randomUUID(), sealed)).toThrow(/authentication failed/);
  });
});

describeIfAvailable(missingPostgresServer(), "createGotrueDatabase and the awkward fixture", () => {
  let db: GotrueDatabase;
  let fixture: AwkwardFixture;
  const users = (where: string, params: unknown[]) =>
    db.client.query(`select * from auth.users where ${where}`, params).then((result) => result.rows);
  const user = async (id: string) => (await users("id = $1", [id]))[0];

  beforeAll(async () => {
    db = await createGotrueDatabase({ adminUrl: adminUrl! });
    fixture = await seedAwkwardFixture(db, { encryptionKey });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("builds GoTrue's tables, types and generated columns in the auth schema", async () => {
    const { rows } = await db.client.query(
      `select table_name, column_name, data_type, udt_name, is_generated, column_default
       from information_schema.columns where table_schema = 'auth'`,
    );
    const column = (table: string, name: string) =>
      rows.find((row) => row.table_name === table && row.column_name === name);
    expect(new Set(rows.map((row) => row.table_name))).toEqual(
      new Set([
        "schema_migrations",
        "users",
        "identities",
        "sessions",
        "refresh_tokens",
        "mfa_factors",
        "mfa_challenges",
        "mfa_amr_claims",
        "webauthn_credentials",
        "one_time_tokens",
        "audit_log_entries",
        "sso_providers",
        "saml_providers",
        "sso_domains",
      ]),
    );
    expect(column("sso_providers", "disabled")?.data_type).toBe("boolean");
    expect(column("saml_providers", "attribute_mapping")?.udt_name).toBe("jsonb");
    expect(column("saml_providers", "name_id_format")?.data_type).toBe("text");
    expect(column("users", "confirmed_at")?.is_generated).toBe("ALWAYS");
    expect(column("identities", "email")?.is_generated).toBe("ALWAYS");
    expect(column("users", "phone_change_token")?.column_default).toBe("''::character varying");
    expect(column("sessions", "aal")?.udt_name).toBe("aal_level");
    expect(column("sessions", "ip")?.udt_name).toBe("inet");
    expect(column("sessions", "refreshed_at")?.data_type).toBe("timestamp without time zone");
    expect(column("sessions", "refresh_token_counter")?.udt_name).toBe("int8");
    expect(column("refresh_tokens", "id")?.udt_name).toBe("int8");
    expect(column("refresh_tokens", "id")?.column_default).toMatch(/^nextval/);
    expect(column("refresh_tokens", "user_id")?.udt_name).toBe("varchar");
    expect(column("mfa_factors", "factor_type")?.udt_name).toBe("factor_type");
    expect(column("mfa_factors", "status")?.udt_name).toBe("factor_status");
    expect(column("one_time_tokens", "token_type")?.udt_name).toBe("one_time_token_type");
    expect(column("audit_log_entries", "payload")?.udt_name).toBe("json");
    const migrations = await db.client.query("select version from auth.schema_migrations");
    expect(migrations.rows).toHaveLength(1);
  });

  it("stores users as GoTrue does", async () => {
    const withPassword = await user(fixture.withPassword.id);
    expect(withPassword).toMatchObject({ instance_id: NIL_UUID, aud: "authenticated", role: "authenticated" });
    expect(withPassword.confirmed_at).toEqual(withPassword.email_confirmed_at);
    expect(withPassword.confirmation_token).toBe("");
    expect(withPassword.encrypted_password).toMatch(/^\$2a\$04\$/);
    expect(await verifyBcrypt(fixture.withPassword.password, withPassword.encrypted_password)).toBe(true);

    const argon2 = await user(fixture.withArgon2Password.id);
    expect(argon2.encrypted_password).toMatch(/^\$argon2id\$v=19\$m=4096,t=2,p=1\$/);
    expect(await verifyArgon2(argon2.encrypted_password, fixture.withArgon2Password.password)).toBe(true);

    const phoneOnly = await user(fixture.phoneOnly.id);
    expect(phoneOnly).toMatchObject({ email: null, phone: "15550100001" });
    expect(phoneOnly.confirmed_at).toEqual(phoneOnly.phone_confirmed_at);

    expect((await user(fixture.unconfirmed.id)).confirmed_at).toBeNull();
    const { softDeleted } = fixture;
    const digest = (value: string) => createHash("sha256").update(`${softDeleted.id}${value}`).digest("base64url");
    expect(softDeleted.storedEmail).toBe(digest(softDeleted.email));
    expect(await user(softDeleted.id)).toMatchObject({
      email: softDeleted.storedEmail,
      phone: digest("").slice(0, 15),
      email_change: digest("soft-deleted-new@example.com"),
      phone_change: digest("").slice(0, 15),
      encrypted_password: null,
      email_change_token_new: "",
    });
    expect((await user(softDeleted.id)).deleted_at).toBeInstanceOf(Date);
    for (const table of ["sessions", "mfa_factors"]) {
      const left = await db.client.query(`select 1 from auth.${table} where user_id = $1`, [softDeleted.id]);
      expect(left.rows).toEqual([]);
    }
    expect((await user(fixture.banned.id)).banned_until.getTime()).toBeGreaterThan(Date.now());
    expect(await user(fixture.anonymous.id)).toMatchObject({ is_anonymous: true, email: null, raw_app_meta_data: {} });
    expect(await user(fixture.invited.id)).toMatchObject({ encrypted_password: "", email_confirmed_at: null });
    expect((await user(fixture.invited.id)).invited_at).toBeInstanceOf(Date);
    expect(await user(fixture.nullTokens.id)).toMatchObject({ confirmation_token: null, email_change: null });
    const { sso } = fixture;
    expect(await user(sso.id)).toMatchObject({ is_sso_user: true, email: fixture.withPassword.email });
    expect(await user(sso.sameEmailId)).toMatchObject({ is_sso_user: true, email: fixture.withPassword.email });
    const { rows: providers } = await db.client.query(
      `select p.id, p.resource_id, p.disabled, s.entity_id, s.metadata_xml, s.name_id_format,
         (select array_agg(d.domain order by d.domain) from auth.sso_domains d where d.sso_provider_id = p.id) as domains
       from auth.sso_providers p join auth.saml_providers s on s.sso_provider_id = p.id order by p.created_at`,
    );
    expect(providers).toEqual([
      {
        id: sso.provider.id,
        resource_id: "acme",
        disabled: null,
        entity_id: sso.provider.entityId,
        metadata_xml: sso.provider.metadataXml,
        name_id_format: sso.provider.nameIdFormat,
        domains: ["Acme.test", "corp.ACME.test"],
      },
      {
        id: sso.disabledProvider.id,
        resource_id: null,
        disabled: true,
        entity_id: sso.disabledProvider.entityId,
        metadata_xml: expect.stringContaining("\r\n"),
        name_id_format: null,
        domains: null,
      },
    ]);
    // GoTrue's partial unique index lets SSO users share an email; its case-blind domain index refuses a twin.
    await expect(
      db.client.query("insert into auth.sso_domains (id, sso_provider_id, domain) values (gen_random_uuid(), $1, $2)", [
        sso.disabledProvider.id,
        "ACME.TEST",
      ]),
    ).rejects.toThrow(/sso_domains_domain_idx/);
    expect((await user(fixture.otherInstance.id)).instance_id).toBe(fixture.otherInstance.instanceId);
  });

  it("keeps pending links both in the user's columns and in one_time_tokens, hashed as §11.2 says", async () => {
    const { rows } = await db.client.query("select * from auth.one_time_tokens");
    const token = (userId: string, type: string) =>
      rows.find((row) => row.user_id === userId && row.token_type === type);
    const { unconfirmed, invited, pendingEmailChange, pendingPhoneChange, pendingRecovery } = fixture;

    expect((await user(unconfirmed.id)).confirmation_token).toBe(gotrueTokenHash(unconfirmed.email, unconfirmed.otp));
    expect(token(unconfirmed.id, "confirmation_token")).toMatchObject({
      token_hash: unconfirmed.tokenHash,
      relates_to: unconfirmed.email,
    });
    expect(token(invited.id, "confirmation_token")?.token_hash).toBe(invited.tokenHash);
    expect(token(pendingRecovery.id, "recovery_token")?.token_hash).toBe(pendingRecovery.tokenHash);
    expect(await user(pendingEmailChange.id)).toMatchObject({
      email_change: pendingEmailChange.newEmail,
      email_change_token_new: gotrueTokenHash(pendingEmailChange.newEmail, pendingEmailChange.otpNew),
      email_change_token_current: gotrueTokenHash(pendingEmailChange.email, pendingEmailChange.otpCurrent),
    });
    expect(token(pendingEmailChange.id, "email_change_token_new")?.relates_to).toBe(pendingEmailChange.newEmail);
    expect(await user(pendingPhoneChange.id)).toMatchObject({
      phone_change: pendingPhoneChange.newPhone,
      phone_change_token: gotrueTokenHash(pendingPhoneChange.newPhone, pendingPhoneChange.otp),
    });
    expect(token(pendingPhoneChange.id, "phone_change_token")?.created_at.getTime()).toBeGreaterThan(
      Date.now() - 60_000,
    );
  });

  it("stores identities with a generated, lower-cased email", async () => {
    const { rows } = await db.client.query("select * from auth.identities");
    const github = rows.find((row) => row.user_id === fixture.oauthOnly.id);
    expect(github).toMatchObject({ provider: "github", provider_id: "123456", email: "octocat@example.com" });
    expect(github.identity_data).toMatchObject({ sub: "123456", user_name: "octocat", email: "Octocat@Example.com" });
    expect(await user(fixture.oauthOnly.id)).toMatchObject({
      encrypted_password: "",
      raw_app_meta_data: { provider: "github", providers: ["github"] },
    });
    const email = rows.find((row) => row.user_id === fixture.withPassword.id);
    expect(email).toMatchObject({ provider: "email", provider_id: fixture.withPassword.id });
    expect(email.email).toBe(fixture.withPassword.email);
    const deleted = rows.find((row) => row.user_id === fixture.softDeleted.id);
    expect(deleted).toMatchObject({ identity_data: {}, email: null });
    expect(rows.filter((row) => row.user_id === fixture.nullTokens.id)).toEqual([]);
  });

  it("holds a legacy refresh token chain mid-rotation", async () => {
    const { rows } = await db.client.query("select * from auth.refresh_tokens where session_id = $1 order by id", [
      fixture.withSession.sessionId,
    ]);
    const { rootToken, parentToken, refreshToken, id } = fixture.withSession;
    expect(rows.map((row) => [row.token, row.parent, row.revoked])).toEqual([
      [rootToken, null, true],
      [parentToken, rootToken, true],
      [refreshToken, parentToken, false],
    ]);
    for (const row of rows) {
      expect(row.token).toMatch(/^[a-z2-7]{12}$/);
      expect(row).toMatchObject({ user_id: id, instance_id: NIL_UUID });
    }
    const session = (
      await db.client.query("select * from auth.sessions where id = $1", [fixture.withSession.sessionId])
    ).rows[0];
    expect(session).toMatchObject({ aal: "aal1", ip: "203.0.113.7", refresh_token_hmac_key: null });
    expect(Math.abs(session.refreshed_at.getTime() - (Date.now() - 600_000))).toBeLessThan(60_000);
    const claims = await db.client.query(
      "select authentication_method from auth.mfa_amr_claims where session_id = $1",
      [fixture.withSession.sessionId],
    );
    expect(claims.rows).toEqual([{ authentication_method: "password" }]);
  });

  it("holds a v2 session whose sealed hmac key signs the token the client holds", async () => {
    const { sessionId, hmacKey, counter, refreshToken } = fixture.withV2Session;
    const session = (await db.client.query("select * from auth.sessions where id = $1", [sessionId])).rows[0];
    expect(session.refresh_token_counter).toBe(String(counter));
    expect(openAsD6Says(session.refresh_token_hmac_key, sessionId, encryptionKey.keyBase64Url)).toBe(hmacKey);
    expect(decodeV2(refreshToken)).toMatchObject({ version: 0, sessionId: sessionId.replaceAll("-", ""), counter });
    expect(refreshToken).toBe(gotrueV2RefreshToken(sessionId, hmacKey, counter));
  });

  it("holds a verified TOTP factor with a sealed secret, and an aal2 session", async () => {
    const { factorId, userId, secret, sessionId } = fixture.withFactor;
    const factor = (await db.client.query("select * from auth.mfa_factors where id = $1", [factorId])).rows[0];
    expect(factor).toMatchObject({ user_id: userId, factor_type: "totp", status: "verified" });
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(openAsD6Says(factor.secret, factorId, encryptionKey.keyBase64Url)).toBe(secret);
    const session = (await db.client.query("select * from auth.sessions where id = $1", [sessionId])).rows[0];
    expect(session).toMatchObject({ aal: "aal2", factor_id: factorId });
    const claims = await db.client.query(
      "select authentication_method from auth.mfa_amr_claims where session_id = $1 order by 1",
      [sessionId],
    );
    expect(claims.rows.map((row) => row.authentication_method)).toEqual(["password", "totp"]);

    const { challengeId, otp } = fixture.withPhoneFactor;
    const challenge = (await db.client.query("select * from auth.mfa_challenges where id = $1", [challengeId])).rows[0];
    expect(openAsD6Says(challenge.otp_code, challengeId, encryptionKey.keyBase64Url)).toBe(otp);
  });

  it("holds GoTrue-shaped audit entries", async () => {
    const { rows } = await db.client.query("select * from auth.audit_log_entries where id = any($1)", [
      fixture.auditEntryIds,
    ]);
    expect(rows).toHaveLength(4);
    expect(rows.find((row) => row.payload.action === "login")).toMatchObject({
      instance_id: NIL_UUID,
      ip_address: "203.0.113.7",
      payload: {
        actor_id: fixture.withPassword.id,
        actor_username: fixture.withPassword.email,
        actor_via_sso: false,
        log_type: "account",
        traits: { provider: "email" },
      },
    });
  });

  it("stores plain secrets when the fixture has no encryption key", async () => {
    const plain = await createGotrueDatabase({ adminUrl: adminUrl ?? "", schema: "gotrue" });
    try {
      const seeded = await seedAwkwardFixture(plain, {});
      const factor = await plain.client.query("select secret from gotrue.mfa_factors where id = $1", [
        seeded.withFactor.factorId,
      ]);
      expect(factor.rows[0]).toEqual({ secret: seeded.withFactor.secret });
      const session = await plain.client.query("select refresh_token_hmac_key from gotrue.sessions where id = $1", [
        seeded.withV2Session.sessionId,
      ]);
      expect(session.rows[0]).toEqual({ refresh_token_hmac_key: seeded.withV2Session.hmacKey });
    } finally {
      await plain.drop();
    }
  });

  it("seeds many users with an email identity each", async () => {
    const count = async (table: string) =>
      Number((await db.client.query(`select count(*) from auth.${table}`)).rows[0].count);
    const [usersBefore, identitiesBefore] = [await count("users"), await count("identities")];
    await seedManyUsers(db, 2000);
    expect(await count("users")).toBe(usersBefore + 2000);
    expect(await count("identities")).toBe(identitiesBefore + 2000);
    const hashes = await db.client.query(
      `select split_part(encrypted_password, '$', 2) as scheme, count(*)::int from auth.users
       where email like 'bench-%' group by 1 order by 1`,
    );
    expect(hashes.rows).toEqual([
      { scheme: "2a", count: 1800 },
      { scheme: "argon2id", count: 200 },
    ]);
  });

  it("drop() removes the database", async () => {
    const doomed = await createGotrueDatabase({ adminUrl: adminUrl ?? "" });
    const name = new URL(doomed.url).pathname.slice(1);
    await doomed.drop();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query("select 1 from pg_database where datname = $1", [name]);
      expect(rows).toEqual([]);
    } finally {
      await admin.end();
    }
  });
});
