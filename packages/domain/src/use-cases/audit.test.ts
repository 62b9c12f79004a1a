import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../model/audit.ts";
import { aUser } from "../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

const password = "s3cret-pass";
const actions = async (testAuth: TestAuth) =>
  (await testAuth.stores.auditLog.list({ page: 1, perPage: 100 })).entries.reverse().map((entry) => entry.action);

async function withUser(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({
    passwordHash: await testAuth.hasher.hash(password),
    phone: "+15550109999",
    userMetadata: { full_name: "Ada L" },
  });
  await testAuth.stores.users.insert(user);
  return { ...testAuth, user };
}

describe("the audit log", () => {
  it("records a confirmed signup as signed up and logged in, with who, from where and how", async () => {
    const testAuth = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    const result = await testAuth.auth.signUp({
      email: "audit@example.com",
      password,
      data: { full_name: "Audi T" },
      context,
    });
    const { entries } = await testAuth.stores.auditLog.list({ page: 1, perPage: 10 });
    expect(entries.map((entry) => entry.action)).toEqual(["login", "user_signedup"]);
    expect(entries[0]).toMatchObject<Partial<AuditEntry>>({
      actorId: result.kind === "session" ? result.grant.user.id : "",
      actorUsername: "audit@example.com",
      actorName: "Audi T",
      traits: { provider: "email" },
      ipAddress: "203.0.113.7",
      userAgent: "vitest",
    });
  });

  it("records a signup awaiting confirmation, and a repeated one under the real account", async () => {
    const testAuth = await withUser();
    await testAuth.auth.signUp({ email: "new@example.com", password, context });
    await testAuth.auth.signUp({ email: testAuth.user.email!, password, context });
    expect(await actions(testAuth)).toEqual(["user_confirmation_requested", "user_repeated_signup"]);
    const [repeated] = (await testAuth.stores.auditLog.list({ page: 1, perPage: 1 })).entries;
    expect(repeated?.actorId).toBe(testAuth.user.id);
  });

  it("records sign-in, refresh, password change, profile change and sign-out", async () => {
    const testAuth = await withUser();
    const { auth } = testAuth;
    const grant = await auth.signInWithPassword({ email: testAuth.user.email!, password, context });
    const refreshed = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    const principal = await auth.authenticate({ accessToken: refreshed.accessToken });
    await auth.updateUser({ principal, password: "another password", context });
    await auth.updateUser({ principal, data: { theme: "dark" }, context });
    await auth.signOut({ principal, scope: "local", context });
    expect(await actions(testAuth)).toEqual([
      "login",
      "token_refreshed",
      "user_updated_password",
      "user_modified",
      "logout",
    ]);
    const [login] = (await testAuth.stores.auditLog.list({ page: 1, perPage: 100 })).entries.reverse();
    expect(login).toMatchObject({ actorUsername: "+15550109999", traits: { provider: "email" } });
  });

  it("records the revocation a replayed refresh token causes, although the request fails", async () => {
    const testAuth = await withUser();
    const { auth } = testAuth;
    const grant = await auth.signInWithPassword({ email: testAuth.user.email!, password, context });
    const child = await auth.refreshSession({ refreshToken: grant.refreshToken, context });
    await auth.refreshSession({ refreshToken: child.refreshToken, context });
    await failsWith("refresh_token_already_used", auth.refreshSession({ refreshToken: grant.refreshToken, context }));
    const [revoked] = (await testAuth.stores.auditLog.list({ page: 1, perPage: 1 })).entries;
    expect(revoked).toMatchObject({
      action: "token_revoked",
      traits: { reason: "refresh_token_reused", session_id: grant.session.id },
    });
  });

  it("writes nothing for a failed sign-in", async () => {
    const testAuth = await withUser();
    await failsWith(
      "invalid_credentials",
      testAuth.auth.signInWithPassword({ email: testAuth.user.email!, password: "wrong-one", context }),
    );
    expect(await actions(testAuth)).toEqual([]);
  });
});
