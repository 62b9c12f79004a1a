import { describe, expect, it } from "vitest";
import type { AdminPrincipal } from "../../deps.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { MAX_PER_PAGE } from "./list-users.ts";

const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };

describe("admin: list and get users", () => {
  /** Five users, one minute apart, oldest first. */
  async function withFiveUsers() {
    const testAuth = createTestAuth();
    const people = [
      { email: "ada@example.com", name: "Ada Lovelace" },
      { email: "bob@example.com", name: "Robert Adams" },
      { email: "carol@example.com", name: "Carol" },
      { email: "dan@example.com", name: "Dan" },
      { email: "eve@example.com", name: "Eve" },
    ];
    const users = [];
    for (const [index, person] of people.entries()) {
      testAuth.clock.advance({ minutes: 1 });
      const phone = `+1555010700${index}`;
      users.push(
        await testAuth.auth.admin.createUser({
          admin,
          email: person.email,
          phone,
          userMetadata: { full_name: person.name },
          context,
        }),
      );
    }
    return { ...testAuth, users };
  }
  const emailsOf = (page: { users: { email: string | null }[] }) => page.users.map((user) => user.email);

  it("pages newest first by default, or oldest first, with the total of all pages", async () => {
    const { auth } = await withFiveUsers();
    const first = await auth.admin.listUsers({ perPage: 2 });
    expect(first).toMatchObject({ total: 5, page: 1, perPage: 2 });
    expect(emailsOf(first)).toEqual(["eve@example.com", "dan@example.com"]);
    expect(emailsOf(await auth.admin.listUsers({ page: 3, perPage: 2 }))).toEqual(["ada@example.com"]);
    expect(await auth.admin.listUsers({ page: 4, perPage: 2 })).toMatchObject({ users: [], total: 5 });
    expect(emailsOf(await auth.admin.listUsers({ page: 2, perPage: 2, order: "asc" }))).toEqual([
      "carol@example.com",
      "dan@example.com",
    ]);
  });

  it("filters by part of the email or of the full name, ignoring case", async () => {
    const { auth } = await withFiveUsers();
    const found = await auth.admin.listUsers({ filter: "ADA" });
    expect(emailsOf(found).sort()).toEqual(["ada@example.com", "bob@example.com"]);
    expect(found.total).toBe(2);
    expect(await auth.admin.listUsers({ filter: "nobody" })).toMatchObject({ users: [], total: 0 });
  });

  it("looks up one exact email or phone, normalised", async () => {
    const { auth, users } = await withFiveUsers();
    expect(await auth.admin.listUsers({ email: "BOB@Example.com" })).toMatchObject({
      total: 1,
      users: [{ id: users[1]!.id }],
    });
    expect(await auth.admin.listUsers({ phone: "+1 555 010 7003" })).toMatchObject({
      total: 1,
      users: [{ id: users[3]!.id }],
    });
    expect(await auth.admin.listUsers({ email: "bob@example.co" })).toMatchObject({ total: 0 });
    await failsWith("validation_failed", auth.admin.listUsers({ email: "not an email" }));
  });

  it("keeps the page within bounds: from page 1, between 1 and MAX_PER_PAGE users, 50 by default", async () => {
    const { auth } = await withFiveUsers();
    expect(await auth.admin.listUsers({ perPage: MAX_PER_PAGE * 10 })).toMatchObject({
      perPage: MAX_PER_PAGE,
      total: 5,
    });
    expect(await auth.admin.listUsers({})).toMatchObject({ page: 1, perPage: 50 });
    const smallest = await auth.admin.listUsers({ page: 0, perPage: 0 });
    expect(smallest).toMatchObject({ page: 1, perPage: 1 });
    expect(smallest.users).toHaveLength(1);
  });

  it("gets one user by id, or user_not_found", async () => {
    const { auth, users } = await withFiveUsers();
    expect((await auth.admin.getUser({ userId: users[2]!.id })).email).toBe("carol@example.com");
    await failsWith("user_not_found", auth.admin.getUser({ userId: crypto.randomUUID() }));
  });
});

describe("admin: list the audit log", () => {
  /** Ada signs up and refreshes; an admin creates, updates and deletes Bob. Six entries. */
  async function withHistory() {
    const testAuth = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    const { auth } = testAuth;
    const signedUp = await auth.signUp({
      email: "ada@example.com",
      password: "s3cret-pass",
      data: { full_name: "Ada Lovelace" },
      context,
    });
    if (signedUp.kind !== "session") throw new Error("expected a session");
    const bob = await auth.admin.createUser({ admin, email: "bob@example.com", context });
    await auth.admin.updateUser({ admin, userId: bob.id, userMetadata: { a: 1 }, context });
    await auth.admin.deleteUser({ admin, userId: bob.id, context });
    await auth.refreshSession({ refreshToken: signedUp.grant.refreshToken, context });
    return testAuth;
  }
  const actionsOf = (page: { entries: { action: string }[] }) => page.entries.map((entry) => entry.action);

  it("lists everything newest first, by page, with the total", async () => {
    const { auth } = await withHistory();
    const all = await auth.admin.listAudit({});
    expect(all).toMatchObject({ total: 6, page: 1, perPage: 50 });
    expect(actionsOf(all)).toEqual([
      "token_refreshed",
      "user_deleted",
      "user_modified",
      "user_signedup",
      "login",
      "user_signedup",
    ]);
    const second = await auth.admin.listAudit({ page: 2, perPage: 2 });
    expect(second).toMatchObject({ total: 6, page: 2, perPage: 2 });
    expect(actionsOf(second)).toEqual(["user_modified", "user_signedup"]);
    expect(await auth.admin.listAudit({ perPage: MAX_PER_PAGE * 10 })).toMatchObject({
      perPage: MAX_PER_PAGE,
      total: 6,
    });
  });

  it("finds by author: part of the actor's username or name, ignoring case", async () => {
    const { auth } = await withHistory();
    const byAdmin = await auth.admin.listAudit({ query: "author:SERVICE" });
    expect(byAdmin.total).toBe(3);
    expect(actionsOf(byAdmin)).toEqual(["user_deleted", "user_modified", "user_signedup"]);
    expect(actionsOf(await auth.admin.listAudit({ query: "author:lovelace" }))).toEqual([
      "token_refreshed",
      "login",
      "user_signedup",
    ]);
    expect((await auth.admin.listAudit({ query: "author:" })).total).toBe(6);
    expect(await auth.admin.listAudit({ query: "author:nobody" })).toMatchObject({ entries: [], total: 0 });
  });

  it("finds by action and by GoTrue's log type", async () => {
    const { auth } = await withHistory();
    expect(actionsOf(await auth.admin.listAudit({ query: "action:login" }))).toEqual(["login"]);
    expect(actionsOf(await auth.admin.listAudit({ query: "action:DELETED" }))).toEqual(["user_deleted"]);
    expect((await auth.admin.listAudit({ query: "action:user_" })).total).toBe(4);
    const team = await auth.admin.listAudit({ query: "type:team" });
    expect(team.total).toBe(3);
    expect(actionsOf(team)).toEqual(["user_deleted", "user_signedup", "user_signedup"]);
    expect(actionsOf(await auth.admin.listAudit({ query: "type:token" }))).toEqual(["token_refreshed"]);
    expect(actionsOf(await auth.admin.listAudit({ query: "type:account" }))).toEqual(["login"]);
    expect(await auth.admin.listAudit({ query: "action:no_such_action" })).toMatchObject({ entries: [], total: 0 });
  });

  it("refuses a query of another scope", async () => {
    const { auth } = await withHistory();
    await failsWith("validation_failed", auth.admin.listAudit({ query: "actor:ada" }));
    await failsWith("validation_failed", auth.admin.listAudit({ query: "ada" }));
  });
});
