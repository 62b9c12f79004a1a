import { randomBytes } from "node:crypto";
import { totpCode, totpStep } from "@latchkey/domain/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import type { GoTrueClient } from "@supabase/auth-js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpHook, type Receiver, secretOf, sessionCount, startReceiver } from "./hooks-support.ts";
import { claimsOf, client } from "./support.ts";

// GoTrue's verification-attempt hooks end to end, through the official client: told of every TOTP code and password
// checked, right or wrong, and able to reject the attempt and end the user's sessions; over HTTP (a receiver that
// checks every call's signature) and as functions in the server's own database.

const password = "correct horse battery";
const address = (name: string) => `${name}-${randomBytes(4).toString("hex")}@example.com`;

/** The code an authenticator app shows for `secret`, `offset` steps from now. */
const appCode = (secret: string, offset = 0) => totpCode(secret, totpStep(new Date()) + offset);

/** A code of six digits that none of the steps GoTrue accepts now (this one and one either side) shows. */
function wrongCode(secret: string): string {
  const accepted = new Set([-1, 0, 1].map((offset) => appCode(secret, offset)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, "0");
    if (!accepted.has(code)) return code;
  }
}

interface Enrolled {
  readonly auth: GoTrueClient;
  readonly email: string;
  readonly userId: string;
  readonly factorId: string;
  readonly secret: string;
}

/** A new account, signed up on a client of its own, with a TOTP factor enrolled and not yet verified. */
async function enrolledPerson(server: TestServer): Promise<Enrolled> {
  const auth = client(server);
  const email = address("mfa");
  const { data, error } = await auth.signUp({ email, password });
  expect(error).toBeNull();
  const enrolled = await auth.mfa.enroll({ factorType: "totp", friendlyName: "Authenticator" });
  expect(enrolled.error).toBeNull();
  const { id: factorId, totp } = enrolled.data! as { id: string; totp: { secret: string } };
  return { auth, email, userId: data.user!.id, factorId, secret: totp.secret };
}

describe("the MFA verification hook over HTTP", () => {
  const secret = secretOf();
  const rejected = new Set<string>();
  let receiver: Receiver;
  let server: TestServer;

  beforeAll(async () => {
    receiver = await startReceiver(secret);
    receiver.on("/mfa", (payload) =>
      rejected.has(payload["user_id"])
        ? { status: 200, body: { decision: "reject", message: "Too many attempts" } }
        : { status: 200, body: { decision: "continue" } },
    );
    server = await startTestServer({
      AUTH_MAILER_AUTOCONFIRM: "true",
      ...httpHook(receiver, "MFA_VERIFICATION_ATTEMPT", "/mfa", secret),
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });
  const callsFor = (userId: string) => receiver.callsTo("/mfa").filter((call) => call.payload["user_id"] === userId);

  it("is told of a wrong code and a right one, each call signed, and lets them go on as they would", async () => {
    const { auth, userId, factorId, secret: totpSecret } = await enrolledPerson(server);
    const wrong = await auth.mfa.challengeAndVerify({ factorId, code: wrongCode(totpSecret) });
    expect(wrong.error).toMatchObject({
      status: 422,
      code: "mfa_verification_failed",
      message: "Invalid TOTP code entered",
    });
    const right = await auth.mfa.challengeAndVerify({ factorId, code: appCode(totpSecret) });
    expect(right.error).toBeNull();
    expect(claimsOf(right.data!.access_token)["aal"]).toBe("aal2");

    const calls = callsFor(userId);
    expect(calls.map((call) => call.verified)).toEqual([true, true]);
    const attempt = { user_id: userId, factor_id: factorId, factor_type: "totp" };
    const metadata = { name: "mfa-verification", ip_address: "127.0.0.1" };
    expect(calls.map((call) => call.payload)).toMatchObject([
      { metadata, ...attempt, valid: false },
      { metadata, ...attempt, valid: true },
    ]);
  });

  it("refuses even a right code it rejects, in its words, and ends every session of the user", async () => {
    const { auth, email, userId, factorId, secret: totpSecret } = await enrolledPerson(server);
    const otherDevice = client(server);
    expect((await otherDevice.signInWithPassword({ email, password })).error).toBeNull();
    expect(await sessionCount(server, userId)).toBe(2);
    rejected.add(userId);

    const challenge = await auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    const { data, error } = await auth.mfa.verify({
      factorId,
      challengeId: challenge.data!.id,
      code: appCode(totpSecret),
    });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 403, code: "mfa_verification_rejected", message: "Too many attempts" });
    expect(callsFor(userId).at(-1)?.payload).toMatchObject({ user_id: userId, factor_id: factorId, valid: true });

    // Both sessions ended: neither refresh token works any more, and the factor stayed unverified.
    expect(await sessionCount(server, userId)).toBe(0);
    expect((await auth.refreshSession()).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    expect((await otherDevice.refreshSession()).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    const [factor] = await server.db.db
      .select()
      .from(server.db.schema.mfaFactors)
      .where(sql`${server.db.schema.mfaFactors.id} = ${factorId}`);
    expect(factor?.status).toBe("unverified");
  });
});

describe("verification hooks as Postgres functions", () => {
  let server: TestServer;
  const schema = `hooks_${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    server = await startTestServer({
      AUTH_MAILER_AUTOCONFIRM: "true",
      AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED: "true",
      AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_URI: `pg-functions://postgres/${schema}/mfa_verification_attempt`,
      AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED: "true",
      AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI: `pg-functions://postgres/${schema}/password_verification_attempt`,
    });
    // As an app writes them: every attempt kept in a table of its own, and the users it has locked out rejected.
    const statements = [
      `CREATE SCHEMA ${schema}`,
      `CREATE TABLE ${schema}.locked_out (user_id uuid PRIMARY KEY)`,
      `CREATE TABLE ${schema}.attempts (
         id bigserial PRIMARY KEY, hook text, user_id uuid, factor_id uuid, factor_type text, valid boolean)`,
      `CREATE FUNCTION ${schema}.mfa_verification_attempt(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO ${schema}.attempts (hook, user_id, factor_id, factor_type, valid) VALUES (
             event->'metadata'->>'name', (event->>'user_id')::uuid, (event->>'factor_id')::uuid,
             event->>'factor_type', (event->>'valid')::boolean);
           IF EXISTS (SELECT 1 FROM ${schema}.locked_out WHERE user_id = (event->>'user_id')::uuid) THEN
             RETURN jsonb_build_object('decision', 'reject', 'message', 'Too many attempts');
           END IF;
           RETURN jsonb_build_object('decision', 'continue');
         END $$`,
      `CREATE FUNCTION ${schema}.password_verification_attempt(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO ${schema}.attempts (hook, user_id, valid) VALUES (
             event->'metadata'->>'name', (event->>'user_id')::uuid, (event->>'valid')::boolean);
           IF EXISTS (SELECT 1 FROM ${schema}.locked_out WHERE user_id = (event->>'user_id')::uuid) THEN
             RETURN jsonb_build_object(
               'decision', 'reject', 'message', 'This account is locked', 'should_logout_user', true);
           END IF;
           RETURN jsonb_build_object('decision', 'continue');
         END $$`,
    ];
    for (const statement of statements) await server.db.db.execute(sql.raw(statement));
  });
  afterAll(async () => {
    await server?.db.db.execute(sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await server?.close();
  });

  const lockOut = (userId: string) =>
    server.db.db.execute(sql.raw(`INSERT INTO ${schema}.locked_out VALUES ('${userId}')`));
  async function attemptsOf(userId: string) {
    const result = await server.db.db.execute(
      sql.raw(`SELECT hook, factor_id::text AS factor_id, factor_type, valid FROM ${schema}.attempts
               WHERE user_id = '${userId}' ORDER BY id`),
    );
    return (result as unknown as { rows: Record<string, unknown>[] }).rows;
  }

  it("tells the MFA function of each code, and its rejection ends the user's sessions", async () => {
    const { auth, userId, factorId, secret } = await enrolledPerson(server);
    const wrong = await auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    expect(wrong.error).toMatchObject({ status: 422, code: "mfa_verification_failed" });
    const right = await auth.mfa.challengeAndVerify({ factorId, code: appCode(secret) });
    expect(right.error).toBeNull();
    expect(claimsOf(right.data!.access_token)["aal"]).toBe("aal2");

    await lockOut(userId);
    const rejected = await auth.mfa.challengeAndVerify({ factorId, code: appCode(secret, 1) });
    expect(rejected.error).toMatchObject({
      status: 403,
      code: "mfa_verification_rejected",
      message: "Too many attempts",
    });
    expect(await sessionCount(server, userId)).toBe(0);
    expect((await auth.refreshSession()).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });

    const attempt = { hook: "mfa-verification", factor_id: factorId, factor_type: "totp" };
    expect(await attemptsOf(userId)).toEqual([
      { ...attempt, valid: false },
      { ...attempt, valid: true },
      { ...attempt, valid: true },
    ]);
  });

  it("lets the password function reject a right password and sign the user out everywhere", async () => {
    const auth = client(server);
    const email = address("member");
    const { data, error } = await auth.signUp({ email, password });
    expect(error).toBeNull();
    const userId = data.user!.id;
    // Until it locks the account, the function lets a right password in and a wrong one fail as it would.
    const laptop = client(server);
    expect((await laptop.signInWithPassword({ email, password })).error).toBeNull();
    const wrong = await client(server).signInWithPassword({ email, password: "wrong password here" });
    expect(wrong.error).toMatchObject({
      status: 400,
      code: "invalid_credentials",
      message: "Invalid login credentials",
    });
    expect(await sessionCount(server, userId)).toBe(2);

    await lockOut(userId);
    const locked = await client(server).signInWithPassword({ email, password });
    expect(locked.data.session).toBeNull();
    expect(locked.error).toMatchObject({ status: 400, code: "invalid_credentials", message: "This account is locked" });
    // should_logout_user: the sessions it had before end too.
    expect(await sessionCount(server, userId)).toBe(0);
    expect((await auth.refreshSession()).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });
    expect((await laptop.refreshSession()).error).toMatchObject({ status: 400, code: "refresh_token_not_found" });

    const attempt = { hook: "password-verification", factor_id: null, factor_type: null };
    expect(await attemptsOf(userId)).toEqual([
      { ...attempt, valid: true },
      { ...attempt, valid: false },
      { ...attempt, valid: true },
    ]);
  });
});
