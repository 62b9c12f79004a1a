import { totpCode, totpStep } from "@latchkey/domain/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import type { GoTrueClient } from "@supabase/auth-js";
import { createClient } from "@supabase/supabase-js";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { type SmsInbox, startSmsInbox } from "./sms-inbox.ts";
import { adminApi, claimsOf, client, memoryStorage } from "./support.ts";

// MFA through the official clients, as an app uses them: TOTP codes computed from the secret the enrollment
// answered, as an authenticator app computes them; phone codes read out of the SMS that reached a Twilio stand-in.

const password = "correct-horse-battery";
let inbox: SmsInbox;
let server: TestServer;

beforeAll(async () => {
  inbox = await startSmsInbox();
  server = await startTestServer({
    ...inbox.serverEnv,
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_MFA_PHONE_ENROLL_ENABLED: "true",
    AUTH_MFA_PHONE_VERIFY_ENABLED: "true",
    AUTH_MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED: "true",
    AUTH_MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED: "true",
    AUTH_RATE_LIMIT_SMS_SENT: "1000",
  });
});
afterAll(async () => {
  await server?.close();
  await inbox?.close();
});
afterEach(() => expect(inbox.problems).toEqual([]));

let people = 0;
/** A new account, signed in with its password on a client of its own. */
async function signedInPerson(): Promise<{ auth: GoTrueClient; email: string }> {
  people += 1;
  const email = `mfa-${people}-${Date.now()}@example.com`;
  const auth = client(server);
  expect((await auth.signUp({ email, password })).error).toBeNull();
  return { auth, email };
}

/** The code an authenticator app shows for `secret`, `offset` steps from now. */
const appCode = (secret: string, offset = 0) => totpCode(secret, totpStep(new Date()) + offset);

describe("TOTP factors with the official client", () => {
  it("enrolls, verifies to aal2, keeps aal2 across a refresh, and unenrolls back to aal1", async () => {
    const { auth, email } = await signedInPerson();
    expect(await auth.mfa.getAuthenticatorAssuranceLevel()).toMatchObject({
      data: { currentLevel: "aal1", nextLevel: "aal1" },
    });

    const enrolled = await auth.mfa.enroll({ factorType: "totp", friendlyName: "Authenticator" });
    expect(enrolled.error).toBeNull();
    const { id: factorId, totp } = enrolled.data! as {
      id: string;
      totp: { qr_code: string; secret: string; uri: string };
    };
    // auth-js makes the data: URL from the raw SVG; a `#` would cut the image short.
    expect(totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg/);
    expect(totp.qr_code).not.toContain("#");
    expect(totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(totp.uri).toMatch(/^otpauth:\/\/totp\/localhost%3A3000:/);

    // At rest, the table holds the secret sealed (GoTrue's aes-gcm-hkdf JSON), nothing usable in clear.
    const [row] = await server.db.db
      .select()
      .from(server.db.schema.mfaFactors)
      .where(eq(server.db.schema.mfaFactors.id, factorId));
    expect(JSON.parse(row!.secret!)).toMatchObject({ alg: "aes-gcm-hkdf", key_id: "latchkey-db-secret" });
    expect(row!.secret).not.toContain(totp.secret);
    expect(row!.secret).not.toContain(Buffer.from(totp.secret).toString("base64"));

    let factors = (await auth.mfa.listFactors()).data!;
    expect(factors.all).toMatchObject([
      { id: factorId, factor_type: "totp", status: "unverified", friendly_name: "Authenticator" },
    ]);
    expect(factors.totp).toEqual([]);

    const challenge = await auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    expect(challenge.data!.expires_at).toBeGreaterThan(Date.now() / 1000 + 290);
    const code = appCode(totp.secret);
    const verified = await auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code });
    expect(verified.error).toBeNull();
    const claims = claimsOf(verified.data!.access_token);
    expect(claims["aal"]).toBe("aal2");
    expect((claims["amr"] as { method: string }[]).map((entry) => entry.method)).toEqual(["totp", "password"]);
    expect(await auth.mfa.getAuthenticatorAssuranceLevel()).toMatchObject({
      data: { currentLevel: "aal2", nextLevel: "aal2" },
    });
    factors = (await auth.mfa.listFactors()).data!;
    expect(factors.totp.map((factor) => factor.id)).toEqual([factorId]);
    const enrolledMail = await server.mail.waitFor(email, (mail) => /added/i.test(mail.subject ?? ""));
    expect(enrolledMail.text).toContain("totp");

    // A refresh keeps the session at aal2.
    const refreshed = await auth.refreshSession();
    expect(claimsOf(refreshed.data.session!.access_token)["aal"]).toBe("aal2");

    // The code just used works no more, even for a new challenge; the next step's does.
    const replay = await auth.mfa.challengeAndVerify({ factorId, code });
    expect(replay.error?.code).toBe("mfa_verification_failed");
    expect((await auth.mfa.challengeAndVerify({ factorId, code: appCode(totp.secret, 1) })).error).toBeNull();

    expect((await auth.mfa.unenroll({ factorId })).error).toBeNull();
    await server.mail.waitFor(email, (mail) => /removed/i.test(mail.subject ?? ""));
    const after = await auth.refreshSession();
    expect(claimsOf(after.data.session!.access_token)["aal"]).toBe("aal1");
    expect(await auth.mfa.getAuthenticatorAssuranceLevel()).toMatchObject({
      data: { currentLevel: "aal1", nextLevel: "aal1" },
    });
  });

  it("ends the account's other aal1 sessions, and holds an aal1 session to what aal1 may do", async () => {
    const { auth, email } = await signedInPerson();
    const otherDevice = client(server);
    expect((await otherDevice.signInWithPassword({ email, password })).error).toBeNull();
    const { data } = await auth.mfa.enroll({ factorType: "totp" });
    const { id: factorId, totp } = data! as { id: string; totp: { secret: string } };
    expect((await auth.mfa.challengeAndVerify({ factorId, code: appCode(totp.secret) })).error).toBeNull();
    // The other device's session ended with the step-up: auth-js reads session_not_found as a session gone.
    expect((await otherDevice.getUser()).error?.name).toBe("AuthSessionMissingError");

    // Signed in again with the password alone: aal1, and aal2 is what is next.
    const laptop = client(server);
    expect((await laptop.signInWithPassword({ email, password })).error).toBeNull();
    expect(await laptop.mfa.getAuthenticatorAssuranceLevel()).toMatchObject({
      data: { currentLevel: "aal1", nextLevel: "aal2" },
    });
    expect((await laptop.mfa.unenroll({ factorId })).error).toMatchObject({ status: 422, code: "insufficient_aal" });
    expect((await laptop.updateUser({ password: "another-password-9" })).error).toMatchObject({
      status: 401,
      code: "insufficient_aal",
    });
    expect((await laptop.mfa.enroll({ factorType: "totp", friendlyName: "Second" })).error).toMatchObject({
      status: 403,
      code: "insufficient_aal",
    });
  });

  it("works through createClient as apps use it", async () => {
    const supabase = createClient(server.url, "anon-key-placeholder", {
      // Node 20 has no WebSocket of its own for the realtime client supabase-js builds.
      realtime: { transport: ws as never },
      auth: { storage: memoryStorage(), autoRefreshToken: false, persistSession: true, detectSessionInUrl: false },
    });
    const email = `mfa-supabase-js-${Date.now()}@example.com`;
    expect((await supabase.auth.signUp({ email, password })).error).toBeNull();
    const { data } = await supabase.auth.mfa.enroll({ factorType: "totp" });
    const { id: factorId, totp } = data! as { id: string; totp: { secret: string } };
    expect((await supabase.auth.mfa.challengeAndVerify({ factorId, code: appCode(totp.secret) })).error).toBeNull();
    expect((await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe("aal2");
  });
});

describe("phone factors with the official client", () => {
  it("texts a code that verifies to aal2 with mfa/phone", async () => {
    const { auth } = await signedInPerson();
    const phone = "+14155550142";
    const enrolled = await auth.mfa.enroll({ factorType: "phone", phone });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toMatchObject({ type: "phone", phone });
    const factorId = enrolled.data!.id;
    const challenge = await auth.mfa.challenge({ factorId });
    expect(challenge.error).toBeNull();
    const sms = await inbox.waitFor(phone);
    expect(sms.body).toBe(`Your code is ${sms.code}`);
    const verified = await auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code: sms.code! });
    expect(verified.error).toBeNull();
    const amr = claimsOf(verified.data!.access_token)["amr"] as { method: string }[];
    expect(amr[0]?.method).toBe("mfa/phone");
    expect((await auth.mfa.listFactors()).data!.phone.map((factor) => factor.id)).toEqual([factorId]);
  });
});

describe("the admin factor routes", () => {
  it("list a user's factors and remove one", async () => {
    const { auth } = await signedInPerson();
    const { data } = await auth.mfa.enroll({ factorType: "totp" });
    const { id: factorId, totp } = data! as { id: string; totp: { secret: string } };
    const verified = await auth.mfa.challengeAndVerify({ factorId, code: appCode(totp.secret) });
    const userId = verified.data!.user.id;
    const admin = await adminApi(server);

    const listed = await admin.mfa.listFactors({ userId });
    expect(listed.error).toBeNull();
    expect(listed.data!.factors).toMatchObject([{ id: factorId, factor_type: "totp", status: "verified" }]);
    const deleted = await admin.mfa.deleteFactor({ userId, id: factorId });
    expect(deleted.error).toBeNull();
    // auth-js hands back its own request's result here: the factor removed is inside.
    expect(deleted.data).toMatchObject({ data: { id: factorId, factor_type: "totp" } });
    expect((await admin.mfa.listFactors({ userId })).data!.factors).toEqual([]);
    // The session the factor took to aal2 is at aal1 from its next refresh.
    expect(claimsOf((await auth.refreshSession()).data.session!.access_token)["aal"]).toBe("aal1");
    expect((await admin.mfa.deleteFactor({ userId, id: factorId })).error).toMatchObject({
      status: 404,
      code: "mfa_factor_not_found",
    });
  });
});
