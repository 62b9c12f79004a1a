import { startTestServer, type TestServer } from "@latchkey/server/testing";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, claimsOf, client, fragmentOf, serviceRoleKey } from "./support.ts";

const password = "correct horse battery";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An entry of GET /admin/audit. */
interface AuditEntry {
  readonly id: string;
  readonly created_at: string;
  readonly ip_address: string;
  readonly payload: {
    readonly actor_id: string;
    readonly actor_username: string;
    readonly action: string;
    readonly log_type: string;
    readonly traits?: Record<string, unknown>;
  };
}

// The admin API as a backend drives it: the official client's admin half, holding a service_role key, over HTTP to a
// server on real PostgreSQL that delivers its mail to a real SMTP server in this process.
describe("the admin API with the official client", () => {
  let server: TestServer;
  let admin: GoTrueAdminApi;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_URI_ALLOW_LIST: "http://localhost:3000/**" });
    admin = await adminApi(server);
  });
  afterAll(() => server.close());

  /** A confirmed user with `password`, made by the admin API. */
  async function confirmedUser(email: string, extra: Record<string, unknown> = {}) {
    const { data, error } = await admin.createUser({ email, password, email_confirm: true, ...extra });
    expect(error).toBeNull();
    return data.user!;
  }

  describe("createUser", () => {
    it("creates a confirmed user with metadata, who then signs in with the password", async () => {
      const { data, error } = await admin.createUser({
        email: "Grace@Example.com",
        password,
        email_confirm: true,
        user_metadata: { name: "Grace" },
        app_metadata: { plan: "pro" },
      });
      expect(error).toBeNull();
      expect(data.user).toMatchObject({
        email: "grace@example.com",
        aud: "authenticated",
        role: "authenticated",
        user_metadata: { name: "Grace" },
        app_metadata: { provider: "email", providers: ["email"], plan: "pro" },
        is_anonymous: false,
      });
      expect(data.user?.id).toMatch(UUID);
      expect(data.user?.email_confirmed_at).toBeTruthy();
      expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(["email"]);
      // Nothing was mailed for a user the admin confirmed.
      expect(server.mail.to("grace@example.com")).toEqual([]);

      const signIn = await client(server).signInWithPassword({ email: "grace@example.com", password });
      expect(signIn.error).toBeNull();
      expect(signIn.data.user?.id).toBe(data.user?.id);
      expect(claimsOf(signIn.data.session!.access_token)).toMatchObject({
        sub: data.user?.id,
        email: "grace@example.com",
        app_metadata: { plan: "pro" },
        user_metadata: { name: "Grace" },
      });
    });

    it("creates a user with a confirmed phone", async () => {
      const { data, error } = await admin.createUser({ phone: "+1 202 555 0142", phone_confirm: true, password });
      expect(error).toBeNull();
      expect(data.user).toMatchObject({
        phone: "+12025550142",
        email: "",
        app_metadata: { provider: "phone", providers: ["phone"] },
      });
      expect(data.user?.phone_confirmed_at).toBeTruthy();
      expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(["phone"]);

      const again = await admin.createUser({ phone: "+12025550142" });
      expect(again.error).toMatchObject({ status: 422, code: "phone_exists" });
    });

    it("refuses an email another user holds, whatever its case, with 422 email_exists", async () => {
      await confirmedUser("taken@example.com");
      for (const email of ["taken@example.com", "TAKEN@example.com"]) {
        const { data, error } = await admin.createUser({ email, password });
        expect(error?.name).toBe("AuthApiError");
        expect(error).toMatchObject({ status: 422, code: "email_exists" });
        expect(data.user).toBeNull();
      }
    });
  });

  describe("getUserById and updateUserById", () => {
    it("reads a user by id, and a missing one is 404 user_not_found", async () => {
      const user = await confirmedUser("reader@example.com");
      const { data, error } = await admin.getUserById(user.id);
      expect(error).toBeNull();
      expect(data.user).toMatchObject({ id: user.id, email: "reader@example.com" });

      const missing = await admin.getUserById("7f9c4e4a-3f52-4c4b-9d2e-000000000001");
      expect(missing.error).toMatchObject({ status: 404, code: "user_not_found" });
    });

    it("bans for 24h: no sign-in, no refresh and no access with the token already issued; 'none' lifts it", async () => {
      const user = await confirmedUser("banned@example.com");
      const device = client(server);
      const session = (await device.signInWithPassword({ email: "banned@example.com", password })).data.session!;

      const before = Date.now();
      const banned = await admin.updateUserById(user.id, { ban_duration: "24h" });
      expect(banned.error).toBeNull();
      const until = Date.parse((banned.data.user as { banned_until?: string }).banned_until!);
      expect(until).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 5_000);
      expect(until).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 5_000);

      const signIn = await client(server).signInWithPassword({ email: "banned@example.com", password });
      expect(signIn.error).toMatchObject({ status: 400, code: "user_banned" });
      expect(signIn.data.session).toBeNull();
      // Unlike GoTrue, the ban is told only to whoever knows the password.
      const wrong = await client(server).signInWithPassword({
        email: "banned@example.com",
        password: "not the password",
      });
      expect(wrong.error?.code).toBe("invalid_credentials");

      const withToken = await client(server).getUser(session.access_token);
      expect(withToken.error).toMatchObject({ status: 403, code: "user_banned" });
      expect(withToken.data.user).toBeNull();
      const refreshed = await client(server).refreshSession({ refresh_token: session.refresh_token });
      expect(refreshed.error).toMatchObject({ status: 400, code: "user_banned" });
      expect(refreshed.data.session).toBeNull();

      const lifted = await admin.updateUserById(user.id, { ban_duration: "none" });
      expect(lifted.error).toBeNull();
      expect((lifted.data.user as { banned_until?: string | null }).banned_until ?? null).toBeNull();
      const again = await client(server).signInWithPassword({ email: "banned@example.com", password });
      expect(again.error).toBeNull();
      expect((await client(server).getUser(again.data.session!.access_token)).data.user?.id).toBe(user.id);
      // The ban ended the sessions it found: lifting it does not bring them back.
      expect((await client(server).refreshSession({ refresh_token: session.refresh_token })).error?.code).toBe(
        "session_expired",
      );
      expect((await client(server).getUser(session.access_token)).error).toBeTruthy();
    });

    it("merges user_metadata and app_metadata, a key set to null being removed", async () => {
      const user = await confirmedUser("merge@example.com", {
        user_metadata: { name: "Merge", theme: "dark" },
        app_metadata: { plan: "free" },
      });
      const { data, error } = await admin.updateUserById(user.id, {
        user_metadata: { locale: "fr", theme: null },
        app_metadata: { plan: "pro", seats: 3 },
      });
      expect(error).toBeNull();
      expect(data.user?.user_metadata).toEqual({ name: "Merge", locale: "fr", email_verified: true });
      expect(data.user?.app_metadata).toEqual({ provider: "email", providers: ["email"], plan: "pro", seats: 3 });
      expect((await admin.getUserById(user.id)).data.user?.user_metadata).toEqual(data.user?.user_metadata);
    });

    it("applies a new email and password at once, and the old password no longer signs in", async () => {
      const user = await confirmedUser("renamed@example.com");
      const { data, error } = await admin.updateUserById(user.id, {
        email: "renamed-too@example.com",
        password: "another fine secret",
      });
      expect(error).toBeNull();
      expect(data.user?.email).toBe("renamed-too@example.com");
      expect(
        (await client(server).signInWithPassword({ email: "renamed-too@example.com", password: "another fine secret" }))
          .error,
      ).toBeNull();
      expect(
        (await client(server).signInWithPassword({ email: "renamed-too@example.com", password })).error?.code,
      ).toBe("invalid_credentials");
      expect((await admin.updateUserById(user.id, { password: "123" })).error).toMatchObject({
        status: 422,
        code: "weak_password",
      });
    });
  });

  describe("deleteUser", () => {
    it("hard-deletes: the user is gone and their session with them", async () => {
      const user = await confirmedUser("gone@example.com");
      const session = (await client(server).signInWithPassword({ email: "gone@example.com", password })).data.session!;
      const { error } = await admin.deleteUser(user.id);
      expect(error).toBeNull();
      expect((await admin.getUserById(user.id)).error).toMatchObject({ status: 404, code: "user_not_found" });
      expect((await client(server).refreshSession({ refresh_token: session.refresh_token })).error).toBeTruthy();
      expect((await client(server).signInWithPassword({ email: "gone@example.com", password })).error?.code).toBe(
        "invalid_credentials",
      );
      expect((await admin.deleteUser(user.id)).error).toMatchObject({ status: 404, code: "user_not_found" });
    });

    it("soft-deletes: the row stays with deleted_at, and its email is free for a new user", async () => {
      const user = await confirmedUser("soft@example.com");
      const session = (await client(server).signInWithPassword({ email: "soft@example.com", password })).data.session!;
      const { error } = await admin.deleteUser(user.id, true);
      expect(error).toBeNull();

      const { data, error: readError } = await admin.getUserById(user.id);
      expect(readError).toBeNull();
      expect(data.user?.id).toBe(user.id);
      expect((data.user as { deleted_at?: string }).deleted_at).toBeTruthy();
      expect(data.user?.email ?? "").not.toBe("soft@example.com");
      expect((await client(server).signInWithPassword({ email: "soft@example.com", password })).error?.code).toBe(
        "invalid_credentials",
      );
      expect((await client(server).refreshSession({ refresh_token: session.refresh_token })).error).toBeTruthy();

      const reborn = await admin.createUser({ email: "soft@example.com", password, email_confirm: true });
      expect(reborn.error).toBeNull();
      expect(reborn.data.user?.id).not.toBe(user.id);
      expect((await client(server).signInWithPassword({ email: "soft@example.com", password })).data.user?.id).toBe(
        reborn.data.user?.id,
      );

      // And a user's own signUp may take a soft-deleted address too.
      const other = await confirmedUser("soft-signup@example.com");
      await admin.deleteUser(other.id, true);
      const signUp = await client(server).signUp({ email: "soft-signup@example.com", password });
      expect(signUp.error).toBeNull();
      expect(signUp.data.user?.id).not.toBe(other.id);
      await server.mail.waitFor("soft-signup@example.com");
    });
  });

  describe("generateLink", () => {
    /** Every address a link was generated for: none of them may ever get a mail. */
    const linked: string[] = [];

    it("signup: the link confirms, lands on redirect_to with a session, and the password then signs in", async () => {
      linked.push("gen-signup@example.com");
      const { data, error } = await admin.generateLink({
        type: "signup",
        email: "gen-signup@example.com",
        password,
        options: { data: { source: "admin" }, redirectTo: "http://localhost:3000/welcome" },
      });
      expect(error).toBeNull();
      expect(data.user).toMatchObject({ email: "gen-signup@example.com", user_metadata: { source: "admin" } });
      expect(data.user?.email_confirmed_at).toBeUndefined();
      const { action_link, email_otp, hashed_token, redirect_to, verification_type } = data.properties!;
      expect(verification_type).toBe("signup");
      expect(redirect_to).toBe("http://localhost:3000/welcome");
      expect(email_otp).toMatch(/^\d{6}$/);
      const link = new URL(action_link);
      expect(`${link.origin}${link.pathname}`).toBe("http://localhost:9999/verify");
      expect(Object.fromEntries(link.searchParams)).toEqual({
        token: hashed_token,
        type: "signup",
        redirect_to: "http://localhost:3000/welcome",
      });
      // Not confirmed until the link is followed.
      expect((await client(server).signInWithPassword({ email: "gen-signup@example.com", password })).error?.code).toBe(
        "email_not_confirmed",
      );

      const response = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: "manual" });
      expect(response.status).toBe(303);
      const landing = new URL(response.headers.get("location")!);
      expect(`${landing.origin}${landing.pathname}`).toBe("http://localhost:3000/welcome");
      const fragment = fragmentOf(landing);
      expect(fragment).toMatchObject({ type: "signup", token_type: "bearer" });
      expect(claimsOf(fragment["access_token"]!)["sub"]).toBe(data.user?.id);
      expect((await client(server).signInWithPassword({ email: "gen-signup@example.com", password })).error).toBeNull();
    });

    it("signup without redirect_to lands on SITE_URL; an existing confirmed address is 422 email_exists", async () => {
      linked.push("gen-site@example.com");
      const { data } = await admin.generateLink({ type: "signup", email: "gen-site@example.com", password });
      expect(data.properties?.redirect_to).toBe("http://localhost:3000");
      expect((await server.followLink(data.properties!.action_link)).origin).toBe("http://localhost:3000");
      const again = await admin.generateLink({ type: "signup", email: "gen-site@example.com", password });
      expect(again.error).toMatchObject({ status: 422, code: "email_exists" });
      expect((await admin.generateLink({ type: "invite", email: "gen-site@example.com" })).error?.code).toBe(
        "email_exists",
      );
    });

    it("invite: creates an invited user, and the link signs them in", async () => {
      linked.push("gen-invite@example.com");
      const { data, error } = await admin.generateLink({
        type: "invite",
        email: "gen-invite@example.com",
        options: { data: { team: "blue" } },
      });
      expect(error).toBeNull();
      expect(data.properties?.verification_type).toBe("invite");
      expect(data.user).toMatchObject({ email: "gen-invite@example.com", user_metadata: { team: "blue" } });
      expect(data.user?.invited_at).toBeTruthy();
      const fragment = fragmentOf(await server.followLink(data.properties!.action_link));
      expect(fragment["type"]).toBe("invite");
      const { data: got } = await client(server).getUser(fragment["access_token"]);
      expect(got.user).toMatchObject({ id: data.user?.id, email: "gen-invite@example.com" });
      expect(got.user?.email_confirmed_at).toBeTruthy();
    });

    it("magiclink: signs in an existing user, and signs up an unknown address", async () => {
      linked.push("gen-magic@example.com", "gen-magic-new@example.com");
      const user = await confirmedUser("gen-magic@example.com");
      const existing = await admin.generateLink({ type: "magiclink", email: "gen-magic@example.com" });
      expect(existing.error).toBeNull();
      expect(existing.data.properties?.verification_type).toBe("magiclink");
      expect(new URL(existing.data.properties!.action_link).searchParams.get("type")).toBe("magiclink");
      const fragment = fragmentOf(await server.followLink(existing.data.properties!.action_link));
      expect(fragment["type"]).toBe("magiclink");
      expect(claimsOf(fragment["access_token"]!)["sub"]).toBe(user.id);

      const unknown = await admin.generateLink({ type: "magiclink", email: "gen-magic-new@example.com" });
      expect(unknown.error).toBeNull();
      expect(unknown.data.properties?.verification_type).toBe("signup");
      expect(unknown.data.user?.email).toBe("gen-magic-new@example.com");
      const signedUp = fragmentOf(await server.followLink(unknown.data.properties!.action_link));
      expect(signedUp["type"]).toBe("signup");
      expect((await client(server).getUser(signedUp["access_token"])).data.user?.email_confirmed_at).toBeTruthy();
    });

    it("magiclink: the code and the token hash work with verifyOtp as well", async () => {
      linked.push("gen-otp@example.com");
      await confirmedUser("gen-otp@example.com");
      const first = await admin.generateLink({ type: "magiclink", email: "gen-otp@example.com" });
      const byCode = await client(server).verifyOtp({
        email: "gen-otp@example.com",
        token: first.data.properties!.email_otp,
        type: "email",
      });
      expect(byCode.error).toBeNull();
      expect(byCode.data.session?.user.email).toBe("gen-otp@example.com");
      const second = await admin.generateLink({ type: "magiclink", email: "gen-otp@example.com" });
      const byHash = await client(server).verifyOtp({
        token_hash: second.data.properties!.hashed_token,
        type: "magiclink",
      });
      expect(byHash.error).toBeNull();
      expect(byHash.data.session?.user.email).toBe("gen-otp@example.com");
    });

    it("recovery: the link signs in, and the user may then set a new password", async () => {
      linked.push("gen-recovery@example.com");
      await confirmedUser("gen-recovery@example.com");
      const { data, error } = await admin.generateLink({
        type: "recovery",
        email: "gen-recovery@example.com",
        options: { redirectTo: "http://localhost:3000/reset" },
      });
      expect(error).toBeNull();
      expect(data.properties?.verification_type).toBe("recovery");
      const landing = await server.followLink(data.properties!.action_link);
      expect(landing.pathname).toBe("/reset");
      const fragment = fragmentOf(landing);
      expect(fragment["type"]).toBe("recovery");
      const auth = client(server);
      await auth.setSession({ access_token: fragment["access_token"]!, refresh_token: fragment["refresh_token"]! });
      expect((await auth.updateUser({ password: "recovered secret" })).error).toBeNull();
      expect(
        (await client(server).signInWithPassword({ email: "gen-recovery@example.com", password: "recovered secret" }))
          .error,
      ).toBeNull();

      const unknown = await admin.generateLink({ type: "recovery", email: "gen-nobody@example.com" });
      expect(unknown.error).toMatchObject({ status: 404, code: "user_not_found" });
    });

    it("email_change_current and email_change_new: following both links moves the address", async () => {
      linked.push("gen-old@example.com", "gen-new@example.com");
      const user = await confirmedUser("gen-old@example.com");
      const current = await admin.generateLink({
        type: "email_change_current",
        email: "gen-old@example.com",
        newEmail: "gen-new@example.com",
      });
      expect(current.error).toBeNull();
      expect(current.data.properties?.verification_type).toBe("email_change_current");
      expect(current.data.user).toMatchObject({ email: "gen-old@example.com", new_email: "gen-new@example.com" });
      const next = await admin.generateLink({
        type: "email_change_new",
        email: "gen-old@example.com",
        newEmail: "gen-new@example.com",
      });
      expect(next.error).toBeNull();
      expect(next.data.properties?.verification_type).toBe("email_change_new");
      expect(new URL(next.data.properties!.action_link).searchParams.get("type")).toBe("email_change");

      // The first link only records its half (secure email change is on by default).
      const halfway = fragmentOf(await server.followLink(current.data.properties!.action_link));
      expect(halfway["access_token"]).toBeUndefined();
      expect(halfway["message"]).toMatch(/^Confirmation link accepted/);
      expect((await admin.getUserById(user.id)).data.user?.email).toBe("gen-old@example.com");

      const done = fragmentOf(await server.followLink(next.data.properties!.action_link));
      expect(done["type"]).toBe("email_change");
      expect(claimsOf(done["access_token"]!)).toMatchObject({ sub: user.id, email: "gen-new@example.com" });
      expect((await admin.getUserById(user.id)).data.user?.email).toBe("gen-new@example.com");
      expect((await client(server).signInWithPassword({ email: "gen-new@example.com", password })).data.user?.id).toBe(
        user.id,
      );
    });

    it("email_change_*: both token hashes verified with verifyOtp move the address; the new one must be free", async () => {
      linked.push("gen-hash-old@example.com", "gen-hash-new@example.com");
      const user = await confirmedUser("gen-hash-old@example.com");
      const change = { email: "gen-hash-old@example.com", newEmail: "gen-hash-new@example.com" };
      const current = await admin.generateLink({ type: "email_change_current", ...change });
      const next = await admin.generateLink({ type: "email_change_new", ...change });

      const first = await client(server).verifyOtp({
        token_hash: next.data.properties!.hashed_token,
        type: "email_change",
      });
      expect(first.error).toBeNull();
      expect(first.data.session).toBeNull();
      expect((await admin.getUserById(user.id)).data.user?.email).toBe("gen-hash-old@example.com");
      const second = await client(server).verifyOtp({
        token_hash: current.data.properties!.hashed_token,
        type: "email_change",
      });
      expect(second.error).toBeNull();
      expect(second.data.user).toMatchObject({ id: user.id, email: "gen-hash-new@example.com" });
      expect((await admin.getUserById(user.id)).data.user?.email).toBe("gen-hash-new@example.com");

      await confirmedUser("gen-holder@example.com");
      const taken = await admin.generateLink({
        type: "email_change_new",
        email: "gen-hash-new@example.com",
        newEmail: "gen-holder@example.com",
      });
      expect(taken.error).toMatchObject({ status: 422, code: "email_exists" });
      const unknownType = await admin.generateLink({
        type: "nonsense" as "signup",
        email: "gen-hash-new@example.com",
        password,
      });
      expect(unknownType.error).toMatchObject({ status: 400, code: "validation_failed" });
    });

    it("sends no mail for any generated link", async () => {
      // A mail the server does send, after all the links: once it has arrived, anything queued before it has had its turn.
      await admin.inviteUserByEmail("gen-sentinel@example.com");
      await server.mail.waitFor("gen-sentinel@example.com");
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(linked.length).toBeGreaterThanOrEqual(10);
      for (const address of linked) expect(server.mail.to(address)).toEqual([]);
    });
  });

  it("inviteUserByEmail: the invitation arrives by mail, and its link signs the invitee in", async () => {
    const { data, error } = await admin.inviteUserByEmail("guest@example.com", {
      data: { role: "editor" },
      redirectTo: "http://localhost:3000/join",
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: "guest@example.com", user_metadata: { role: "editor" } });
    expect(data.user?.invited_at).toBeTruthy();
    const mail = await server.mail.waitFor("guest@example.com");
    expect(mail.subject).toBe("You've been invited");
    const landing = await server.followLink(mail.link!);
    expect(landing.pathname).toBe("/join");
    const fragment = fragmentOf(landing);
    expect(fragment["type"]).toBe("invite");
    const auth = client(server);
    await auth.setSession({ access_token: fragment["access_token"]!, refresh_token: fragment["refresh_token"]! });
    expect((await auth.getUser()).data.user).toMatchObject({ id: data.user?.id, email: "guest@example.com" });
    expect((await auth.updateUser({ password })).error).toBeNull();
    expect((await client(server).signInWithPassword({ email: "guest@example.com", password })).error).toBeNull();

    // A confirmed user cannot be invited again.
    expect((await admin.inviteUserByEmail("guest@example.com")).error).toMatchObject({
      status: 422,
      code: "email_exists",
    });
  });

  it("refuses every admin route without a token (401) and with a user's token (403 not_admin)", async () => {
    const user = await confirmedUser("not-an-admin@example.com");
    const userToken = (await client(server).signInWithPassword({ email: "not-an-admin@example.com", password })).data
      .session!.access_token;
    const someId = user.id;
    const routes: [string, string, unknown?][] = [
      ["GET", "/admin/users"],
      ["POST", "/admin/users", { email: "sneaky@example.com", password }],
      ["GET", `/admin/users/${someId}`],
      ["PUT", `/admin/users/${someId}`, { user_metadata: { owned: true } }],
      ["DELETE", `/admin/users/${someId}`],
      ["GET", `/admin/users/${someId}/factors`],
      ["POST", "/admin/generate_link", { type: "magiclink", email: "not-an-admin@example.com" }],
      ["GET", "/admin/audit"],
      ["POST", "/invite", { email: "sneaky@example.com" }],
    ];
    for (const [method, path, json] of routes) {
      const anonymous = await server.fetch(path, { method, json });
      expect(anonymous.status, `${method} ${path} without a token`).toBe(401);
      expect((await anonymous.json()) as unknown, `${method} ${path} without a token`).toMatchObject({
        error_code: "no_authorization",
      });

      const asUser = await server.fetch(path, { method, json, headers: { authorization: `Bearer ${userToken}` } });
      expect(asUser.status, `${method} ${path} as a user`).toBe(403);
      expect(asUser.headers.get("x-sb-error-code")).toBe("not_admin");
      expect((await asUser.json()) as unknown, `${method} ${path} as a user`).toMatchObject({
        error_code: "not_admin",
        msg: "User not allowed",
      });
    }
    // Nothing happened to the user the refused requests named.
    expect((await admin.getUserById(someId)).data.user?.user_metadata).not.toHaveProperty("owned");

    // And the official client's admin API reads the refusal as a typed error.
    const asUser = client(server, { headers: { Authorization: `Bearer ${userToken}` } });
    const refused = await asUser.admin.listUsers();
    expect(refused.error).toMatchObject({ name: "AuthApiError", status: 403, code: "not_admin" });
    const forged = await client(server, {
      headers: { Authorization: `Bearer ${userToken.slice(0, -4)}AAAA` },
    }).admin.listUsers();
    expect(forged.error?.status).toBe(403);
    expect(forged.error?.code).toBe("bad_jwt");
  });

  it("records what admins and users did in the audit log, filterable by action", async () => {
    const key = await serviceRoleKey();
    const audit = async (query = "") => {
      const response = await server.fetch(`/admin/audit?per_page=1000${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(Number(response.headers.get("x-total-count"))).toBeGreaterThan(0);
      return (await response.json()) as AuditEntry[];
    };

    const created = await confirmedUser("audited@example.com");
    await admin.updateUserById(created.id, { user_metadata: { audited: true } });
    await client(server).signInWithPassword({ email: "audited@example.com", password });
    await admin.inviteUserByEmail("audited-invitee@example.com");
    await admin.deleteUser(created.id);

    const entries = await audit();
    const about = (action: string, email: string) =>
      entries.filter(
        (entry) =>
          entry.payload.action === action &&
          (entry.payload.traits?.["user_email"] ?? entry.payload.actor_username) === email,
      );

    const [signedUp] = about("user_signedup", "audited@example.com");
    expect(signedUp?.payload).toMatchObject({
      actor_id: "00000000-0000-0000-0000-000000000000",
      actor_username: "service_role",
      actor_via_sso: false,
      log_type: "team",
      traits: { user_id: created.id, user_email: "audited@example.com" },
    });
    expect(signedUp?.id).toMatch(UUID);
    expect(signedUp?.ip_address).toMatch(/127\.0\.0\.1/);
    expect(about("user_modified", "audited@example.com")[0]?.payload).toMatchObject({
      actor_username: "service_role",
      log_type: "user",
    });
    expect(about("user_deleted", "audited@example.com")[0]?.payload).toMatchObject({
      actor_username: "service_role",
      traits: { user_id: created.id },
    });
    expect(about("user_invited", "audited-invitee@example.com")).toHaveLength(1);
    const [login] = about("login", "audited@example.com");
    expect(login?.payload).toMatchObject({ actor_id: created.id, log_type: "account" });
    // Newest first.
    const times = entries.map((entry) => Date.parse(entry.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const deletions = await audit("&query=action:user_deleted");
    expect(deletions.length).toBeGreaterThan(0);
    expect(deletions.every((entry) => entry.payload.action === "user_deleted")).toBe(true);
    expect(deletions.map((entry) => entry.id)).toContain(about("user_deleted", "audited@example.com")[0]?.id);
    expect(deletions.length).toBe(entries.filter((entry) => entry.payload.action === "user_deleted").length);

    const bad = await server.fetch("/admin/audit?query=colour:red", { headers: { authorization: `Bearer ${key}` } });
    expect(bad.status).toBe(400);
  });

  it("records the admin, not the invitee, as the actor of an invitation", async () => {
    await admin.inviteUserByEmail("audited-guest@example.com");
    const response = await server.fetch("/admin/audit?query=action:user_invited", {
      headers: { authorization: `Bearer ${await serviceRoleKey()}` },
    });
    const entries = (await response.json()) as AuditEntry[];
    const invitation = entries.find((entry) => entry.payload.traits?.["user_email"] === "audited-guest@example.com");
    expect(invitation?.payload).toMatchObject({
      actor_id: "00000000-0000-0000-0000-000000000000",
      actor_username: "service_role",
    });
  });
});

describe("listUsers pagination with the official client", () => {
  let server: TestServer;
  let admin: GoTrueAdminApi;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await adminApi(server);
  });
  afterAll(() => server.close());

  it("pages users and reports total, nextPage and lastPage from X-Total-Count and Link", async () => {
    const ids: string[] = [];
    for (const email of ["page-1@example.com", "page-2@example.com", "page-3@example.com"]) {
      const { data, error } = await admin.createUser({ email, password, email_confirm: true });
      expect(error).toBeNull();
      ids.push(data.user!.id);
    }

    const first = await admin.listUsers({ page: 1, perPage: 2 });
    expect(first.error).toBeNull();
    // This server's own database namespace holds these three users and no others.
    expect(first.data).toMatchObject({ total: 3, nextPage: 2, lastPage: 2, aud: "authenticated" });
    expect(first.data.users).toHaveLength(2);

    const second = await admin.listUsers({ page: 2, perPage: 2 });
    expect(second.error).toBeNull();
    expect(second.data).toMatchObject({ total: 3, nextPage: null, lastPage: 2 });
    expect(second.data.users).toHaveLength(1);
    // Newest first, each user once.
    expect([...first.data.users, ...second.data.users].map((user) => user.id)).toEqual([...ids].reverse());

    const all = await admin.listUsers();
    expect(all.data).toMatchObject({ total: 3, nextPage: null, lastPage: 1 });
    expect(all.data.users.map((user) => user.email).sort()).toEqual([
      "page-1@example.com",
      "page-2@example.com",
      "page-3@example.com",
    ]);

    const raw = await server.fetch("/admin/users?page=1&per_page=2", {
      headers: { authorization: `Bearer ${await serviceRoleKey()}` },
    });
    expect(raw.headers.get("x-total-count")).toBe("3");
    expect(raw.headers.get("link")).toBe(
      '</admin/users?page=2&per_page=2>; rel="next", </admin/users?page=2&per_page=2>; rel="last"',
    );
  });
});
