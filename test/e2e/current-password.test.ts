import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, memoryStorage } from "./support.ts";

// SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD through supabase-js: updateUser({ password, current_password }).

let server: TestServer;
let anon: string;

beforeAll(async () => {
  server = await startTestServer({
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: "true",
  });
  anon = await anonKey();
});
afterAll(async () => {
  await server?.close();
});

const app = () =>
  createClient(server.url, anon, {
    realtime: { transport: ws as never },
    auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
  });

describe("changing the password with the current one required", () => {
  it("refuses it without the current password, or with a wrong one, in GoTrue's codes, and takes the right one", async () => {
    const client = app();
    const email = `current-${Date.now()}@example.com`;
    expect((await client.auth.signUp({ email, password: "first-pass-word" })).error).toBeNull();

    const missing = await client.auth.updateUser({ password: "second-pass-word" });
    expect(missing.error).toMatchObject({ status: 400, code: "current_password_required" });
    const wrong = await client.auth.updateUser({ password: "second-pass-word", current_password: "not-it" });
    expect(wrong.error).toMatchObject({ status: 400, code: "current_password_invalid" });
    const right = await client.auth.updateUser({ password: "second-pass-word", current_password: "first-pass-word" });
    expect(right.error).toBeNull();

    const again = app();
    expect((await again.auth.signInWithPassword({ email, password: "second-pass-word" })).error).toBeNull();
  });
});
