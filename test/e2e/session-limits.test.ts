import { totpCode, totpStep } from "@latchkey/domain/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, memoryStorage } from "./support.ts";

// SESSIONS_TIMEBOX, SESSIONS_INACTIVITY_TIMEOUT, SESSIONS_ALLOW_LOW_AAL (durations of seconds) and
// SESSIONS_SINGLE_PER_USER through supabase-js.

let timeboxed: TestServer;
let inactive: TestServer;
let single: TestServer;
let lowAal: TestServer;
let anon: string;

beforeAll(async () => {
  [timeboxed, inactive, single, lowAal] = await Promise.all([
    startTestServer({ AUTH_MAILER_AUTOCONFIRM: "true", AUTH_SESSIONS_TIMEBOX: "2s" }),
    startTestServer({ AUTH_MAILER_AUTOCONFIRM: "true", AUTH_SESSIONS_INACTIVITY_TIMEOUT: "2s" }),
    startTestServer({ AUTH_MAILER_AUTOCONFIRM: "true", AUTH_SESSIONS_SINGLE_PER_USER: "true" }),
    startTestServer({ AUTH_MAILER_AUTOCONFIRM: "true", AUTH_SESSIONS_ALLOW_LOW_AAL: "2s" }),
  ]);
  anon = await anonKey();
});
afterAll(async () => {
  await Promise.all([timeboxed?.close(), inactive?.close(), single?.close(), lowAal?.close()]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const client = (server: TestServer) =>
  createClient(server.url, anon, {
    realtime: { transport: ws as never },
    auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
  });

const PASSWORD = "pass-word-1";

async function signedUp(server: TestServer, email = `limits-${crypto.randomUUID()}@example.com`) {
  const app = client(server);
  const { error } = await app.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  return app;
}

describe("session limits", () => {
  it("end a session at SESSIONS_TIMEBOX: refreshes and GET /user are refused after it", async () => {
    const app = await signedUp(timeboxed);
    expect((await app.auth.refreshSession()).error).toBeNull();
    const { data } = await app.auth.getSession();
    const accessToken = data.session!.access_token;
    await sleep(2200);
    const user = await app.auth.getUser(accessToken);
    expect(user.error).toMatchObject({ status: 403, code: "session_expired" });
    const refreshed = await app.auth.refreshSession({ refresh_token: data.session!.refresh_token });
    expect(refreshed.error).toMatchObject({ status: 400, code: "session_expired" });
  });

  it("end a session unrefreshed for SESSIONS_INACTIVITY_TIMEOUT, and keep one refreshed in time", async () => {
    const app = await signedUp(inactive);
    await sleep(1200);
    expect((await app.auth.refreshSession()).error).toBeNull();
    await sleep(1200);
    expect((await app.auth.refreshSession()).error).toBeNull();
    await sleep(2200);
    const ended = await app.auth.refreshSession();
    expect(ended.error).toMatchObject({ status: 400, code: "session_expired" });
    expect(ended.error?.message).toBe("Invalid Refresh Token: Session Expired (Inactivity)");
  });

  it("keep one session per user with SESSIONS_SINGLE_PER_USER: a newer sign-in ends the older at its refresh", async () => {
    const email = `single-${crypto.randomUUID()}@example.com`;
    const laptop = await signedUp(single, email);
    await sleep(20);
    const phone = client(single);
    expect((await phone.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();

    const ended = await laptop.auth.refreshSession();
    expect(ended.error).toMatchObject({ status: 400, code: "session_expired" });
    expect(ended.error?.message).toBe("Invalid Refresh Token: Session Expired (Revoked by Newer Login)");
    expect((await phone.auth.refreshSession()).error).toBeNull();
    expect((await phone.auth.refreshSession()).error).toBeNull();
  });

  it("end an aal1 session at SESSIONS_ALLOW_LOW_AAL once its user has a verified factor; an aal2 one goes on", async () => {
    const email = `low-aal-${crypto.randomUUID()}@example.com`;
    const laptop = await signedUp(lowAal, email);
    const enrolled = await laptop.auth.mfa.enroll({ factorType: "totp", friendlyName: "Authenticator" });
    expect(enrolled.error).toBeNull();
    const { id: factorId, totp } = enrolled.data! as { id: string; totp: { secret: string } };
    const code = totpCode(totp.secret, totpStep(new Date()));
    expect((await laptop.auth.mfa.challengeAndVerify({ factorId, code })).error).toBeNull();
    const phone = client(lowAal);
    expect((await phone.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    expect((await phone.auth.refreshSession()).error).toBeNull();

    await sleep(2200);
    const ended = await phone.auth.refreshSession();
    expect(ended.error).toMatchObject({ status: 400, code: "session_expired" });
    expect(ended.error?.message).toBe("Invalid Refresh Token: Session Expired (Low AAL: User Needs MFA Verification)");
    expect((await laptop.auth.refreshSession()).error).toBeNull();
  });
});
