import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { AuthApiError } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client } from "./support.ts";

describe("the official @supabase/auth-js client, unchanged, against Latchkey", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_MAILER_AUTOCONFIRM: "true" });
  });
  afterAll(() => server.close());

  it("signs up, signs in, reads the user and the session, refreshes, updates and signs out", async () => {
    const auth = client(server);
    const signUp = await auth.signUp({
      email: "ada@example.com",
      password: "analytical-engine",
      options: { data: { name: "Ada" } },
    });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session?.access_token).toBeTruthy();
    expect(signUp.data.user?.user_metadata).toMatchObject({ name: "Ada", email_verified: true });

    await auth.signOut({ scope: "local" });
    const signIn = await auth.signInWithPassword({ email: "ada@example.com", password: "analytical-engine" });
    expect(signIn.error).toBeNull();
    const session = signIn.data.session!;
    expect(session.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(session.token_type).toBe("bearer");

    const { data: got, error: getUserError } = await auth.getUser();
    expect(getUserError).toBeNull();
    expect(got.user).toMatchObject({ id: signUp.data.user!.id, email: "ada@example.com", aud: "authenticated" });

    const { data: current } = await auth.getSession();
    expect(current.session?.access_token).toBe(session.access_token);

    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(session.refresh_token);
    expect(refreshed.data.user?.id).toBe(got.user!.id);

    const updated = await auth.updateUser({ data: { name: "Ada Lovelace" } });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.user_metadata["name"]).toBe("Ada Lovelace");

    const newPassword = await auth.updateUser({ password: "difference-engine" });
    expect(newPassword.error).toBeNull();

    const signOut = await auth.signOut();
    expect(signOut.error).toBeNull();
    expect((await auth.getSession()).data.session).toBeNull();

    const again = await auth.signInWithPassword({ email: "ada@example.com", password: "difference-engine" });
    expect(again.error).toBeNull();
    const oldPassword = await auth.signInWithPassword({ email: "ada@example.com", password: "analytical-engine" });
    expect(oldPassword.error).toBeInstanceOf(AuthApiError);
    expect(oldPassword.error?.code).toBe("invalid_credentials");
  });

  it("reads Latchkey's errors as the typed errors apps handle", async () => {
    const auth = client(server);
    const weak = await auth.signUp({ email: "weak@example.com", password: "123" });
    expect(weak.error?.name).toBe("AuthWeakPasswordError");
    expect((weak.error as { reasons?: string[] }).reasons).toEqual(["length"]);

    const wrong = await auth.signInWithPassword({ email: "nobody@example.com", password: "whatever-it-is" });
    expect(wrong.error?.status).toBe(400);
    expect(wrong.error?.code).toBe("invalid_credentials");
    expect(wrong.error?.message).toBe("Invalid login credentials");

    await auth.signUp({ email: "twice@example.com", password: "secret-password" });
    const duplicate = await client(server).signUp({ email: "twice@example.com", password: "secret-password" });
    expect(duplicate.error?.code).toBe("user_already_exists");
    expect(duplicate.error?.status).toBe(422);
  });

  it("loses the session when the server revokes it, as a signed-out other device does", async () => {
    const laptop = client(server);
    const phone = client(server);
    await laptop.signUp({ email: "two-devices@example.com", password: "secret-password" });
    const phoneSession = (
      await phone.signInWithPassword({ email: "two-devices@example.com", password: "secret-password" })
    ).data.session!;
    await laptop.signOut({ scope: "global" });
    const { error } = await phone.getUser();
    // auth-js reads session_not_found as "the session is gone" and forgets it.
    expect(error?.name).toBe("AuthSessionMissingError");
    expect((await phone.getSession()).data.session).toBeNull();
    const refreshed = await client(server).refreshSession({ refresh_token: phoneSession.refresh_token });
    expect(refreshed.error?.code).toBe("refresh_token_not_found");
  });
});

describe("auth-js against a server that requires email confirmation", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("signs up without a session, and refuses the password until the address is confirmed", async () => {
    const auth = client(server);
    const signUp = await auth.signUp({ email: "pending@example.com", password: "secret-password" });
    expect(signUp.error).toBeNull();
    expect(signUp.data.session).toBeNull();
    expect(signUp.data.user?.email).toBe("pending@example.com");
    expect(signUp.data.user?.confirmation_sent_at).toBeTruthy();
    const signIn = await auth.signInWithPassword({ email: "pending@example.com", password: "secret-password" });
    expect(signIn.error?.code).toBe("email_not_confirmed");
  });
});
