import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, client } from "./support.ts";

// The metadata size limits (docs/compatibility.md, Metadata size limits) as the official client meets them: a clear
// 400 past them, and, at them, an access token that still fits in the Authorization header.

const password = "correct horse battery";

/** An object whose JSON text takes exactly `bytes` bytes of UTF-8, much of it in 4-byte characters. */
function sized(bytes: number): Record<string, string> {
  const emoji = Math.floor((bytes - '{"pad":""}'.length) / 4);
  return { pad: "😀".repeat(emoji) + "x".repeat(bytes - '{"pad":""}'.length - emoji * 4) };
}

describe("metadata size limits, through the official client", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("refuses a signup with 200 KB of data with 400 validation_failed, and creates no one", async () => {
    const { data, error } = await client(server).signUp({
      email: "huge@example.com",
      password,
      options: { data: { blob: "x".repeat(200_000) } },
    });
    expect(data.user).toBeNull();
    expect(error).toMatchObject({ status: 400, code: "validation_failed" });
    expect(error?.message).toMatch(/^user_metadata is too large: at most 8192 bytes as JSON, got \d+$/);
    const { data: listed } = await (await adminApi(server)).listUsers();
    expect(listed.users.map((user) => user.email)).not.toContain("huge@example.com");
  });

  it("refuses updateUser with data past the limit, and keeps a user at both limits signed in", async () => {
    const admin = await adminApi(server);
    const email = "full@example.com";
    const created = await admin.createUser({
      email,
      password,
      email_confirm: true,
      // Confirming the email adds `email_verified: true`; app_metadata starts with the providers.
      user_metadata: sized(8192 - ',"email_verified":true'.length),
      app_metadata: sized(2048 - '"provider":"email","providers":["email"],'.length),
    });
    expect(created.error).toBeNull();
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    expect(bytes(created.data.user?.user_metadata)).toBe(8192);
    expect(bytes(created.data.user?.app_metadata)).toBe(2048);

    const auth = client(server);
    const { data: signedIn, error: signInError } = await auth.signInWithPassword({ email, password });
    expect(signInError).toBeNull();
    // A token carrying both at their limits (about 14,200 characters) fits in the server's 16 KiB of headers.
    expect(signedIn.session!.access_token.length).toBeLessThan(15_000);
    const { data: got, error: getError } = await auth.getUser();
    expect(getError).toBeNull();
    expect(got.user?.email).toBe(email);

    const { error } = await auth.updateUser({ data: { one: "more" } });
    expect(error).toMatchObject({ status: 400, code: "validation_failed" });
    expect(error?.message).toBe(
      `user_metadata is too large: at most 8192 bytes as JSON, got ${8192 + ',"one":"more"'.length}`,
    );
    // Trimming is always taken.
    const { data: trimmed, error: trimError } = await auth.updateUser({ data: { pad: null } });
    expect(trimError).toBeNull();
    expect(trimmed.user?.user_metadata).not.toHaveProperty("pad");
  });
});
