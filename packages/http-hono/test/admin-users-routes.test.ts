import { createHmac } from "node:crypto";
import type { TestAuthOptions } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const password = "secret-password";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = "0b6f1a2c-3d4e-4f50-8a1b-2c3d4e5f6a7b";

/** The test app, a service_role key (a Supabase service key: no sub, no session) and a way to call as it. */
async function adminApp(options: TestAuthOptions = {}) {
  const app = createTestApp({ ...options, policy: { signup: { emailAutoconfirm: true }, ...options.policy } });
  const inAnHour = () => Math.floor(app.clock.now().getTime() / 1000) + 3600;
  const serviceKey = await app.ports.signer.sign({ role: "service_role", exp: inAnHour() });
  const asService = { authorization: `Bearer ${serviceKey}` };
  const admin = (method: string, path: string, body?: unknown) => app.send(method, path, body, asService);
  const create = async (body: Record<string, unknown>) => {
    const response = await admin("POST", "/admin/users", body);
    expect(response.status).toBe(200);
    return json(response);
  };
  return { ...app, inAnHour, asService, admin, create };
}

/** A JWT of the right shape signed with another key than the server's. */
function forged(claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const body = `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}`;
  return `${body}.${createHmac("sha256", "some-other-secret").update(body).digest("base64url")}`;
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function expectError(response: Response, status: number, errorCode: string) {
  const body = await json(response);
  expect({ status: response.status, error_code: body.error_code }).toEqual({ status, error_code: errorCode });
  expect(body.code).toBe(status);
  expect(typeof body.msg).toBe("string");
}

interface AdminRoute {
  readonly name: string;
  readonly method: string;
  /** The path, for a user the route may act on. */
  readonly path: (userId: string) => string;
  readonly body?: unknown;
}

const ADMIN_ROUTES: AdminRoute[] = [
  { name: "GET /admin/users", method: "GET", path: () => "/admin/users" },
  { name: "POST /admin/users", method: "POST", path: () => "/admin/users", body: { email: "new@example.com" } },
  {
    name: "POST /admin/users/<id>",
    method: "POST",
    path: () => `/admin/users/${UNKNOWN_ID}`,
    body: { email: "new@example.com" },
  },
  { name: "GET /admin/users/<id>", method: "GET", path: (id) => `/admin/users/${id}` },
  {
    name: "PUT /admin/users/<id>",
    method: "PUT",
    path: (id) => `/admin/users/${id}`,
    body: { user_metadata: { plan: "pro" } },
  },
  { name: "DELETE /admin/users/<id>", method: "DELETE", path: (id) => `/admin/users/${id}` },
  {
    name: "POST /admin/generate_link",
    method: "POST",
    path: () => "/admin/generate_link",
    body: { type: "magiclink", email: "target@example.com" },
  },
  { name: "GET /admin/audit", method: "GET", path: () => "/admin/audit" },
];

describe("authorization of the admin routes", () => {
  /** A signed-in user (ada) and a user for the routes to act on (target). */
  async function withUsers() {
    const app = await adminApp();
    const session = await json(await app.send("POST", "/signup", { email: "ada@example.com", password }));
    const target = await app.create({ email: "target@example.com" });
    return { ...app, session, target };
  }

  it.each(ADMIN_ROUTES)("$name refuses a missing token with 401 no_authorization", async (route) => {
    const { send, target } = await withUsers();
    await expectError(await send(route.method, route.path(target.id), route.body), 401, "no_authorization");
    await expectError(
      await send(route.method, route.path(target.id), route.body, { authorization: "Basic abc" }),
      401,
      "no_authorization",
    );
  });

  it.each(ADMIN_ROUTES)("$name refuses a signed-in user's token with 403 not_admin", async (route) => {
    const { send, target, session } = await withUsers();
    expect(claimsOf(session.access_token)["role"]).toBe("authenticated");
    await expectError(
      await send(route.method, route.path(target.id), route.body, bearer(session.access_token)),
      403,
      "not_admin",
    );
  });

  it.each(ADMIN_ROUTES)("$name refuses a forged or expired service key with 403 bad_jwt", async (route) => {
    const { send, target, ports, clock, inAnHour } = await withUsers();
    const forgedKey = forged({ role: "service_role", exp: inAnHour() });
    await expectError(await send(route.method, route.path(target.id), route.body, bearer(forgedKey)), 403, "bad_jwt");
    const expiredKey = await ports.signer.sign({
      role: "service_role",
      exp: Math.floor(clock.now().getTime() / 1000) - 1,
    });
    await expectError(await send(route.method, route.path(target.id), route.body, bearer(expiredKey)), 403, "bad_jwt");
  });

  it.each(ADMIN_ROUTES)("$name admits a service_role key, and a supabase_admin token", async (route) => {
    const { send, target, asService } = await withUsers();
    const response = await send(route.method, route.path(target.id), route.body, asService);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);

    const other = await withUsers();
    const supabaseAdmin = await other.ports.signer.sign({ role: "supabase_admin", exp: other.inAnHour() });
    expect(
      (await other.send(route.method, route.path(other.target.id), route.body, bearer(supabaseAdmin))).status,
    ).toBe(200);
  });

  it.each(ADMIN_ROUTES)(
    "$name refuses an admin token whose user is gone (403 user_not_found) or whose session is (403 session_not_found)",
    async (route) => {
      const { send, target, ports, inAnHour, admin, session } = await withUsers();
      // An admin-role token that names a real user and session, as a dashboard user's token would.
      const staffToken = await ports.signer.sign({
        ...claimsOf(session.access_token),
        role: "service_role",
        exp: inAnHour(),
      });
      expect((await send("GET", "/admin/users", undefined, bearer(staffToken))).status).toBe(200);

      expect((await send("POST", "/logout", undefined, bearer(session.access_token))).status).toBe(204);
      await expectError(
        await send(route.method, route.path(target.id), route.body, bearer(staffToken)),
        403,
        "session_not_found",
      );

      expect((await admin("DELETE", `/admin/users/${session.user.id}`)).status).toBe(200);
      await expectError(
        await send(route.method, route.path(target.id), route.body, bearer(staffToken)),
        403,
        "user_not_found",
      );
    },
  );
});

describe("the user a path names", () => {
  it.each(["GET", "PUT", "DELETE", "POST"])("%s answers a malformed id with 404 validation_failed", async (method) => {
    const { admin } = await adminApp();
    for (const id of ["not-a-uuid", "1234", "0b6f1a2c3d4e4f508a1b2c3d4e5f6a7b0"]) {
      await expectError(
        await admin(
          method,
          `/admin/users/${id}`,
          method === "PUT" || method === "POST" ? { email: "x@example.com" } : undefined,
        ),
        404,
        "validation_failed",
      );
    }
  });

  it.each(["GET", "PUT", "DELETE"])("%s answers an unknown id with 404 user_not_found", async (method) => {
    const { admin } = await adminApp();
    await expectError(
      await admin(method, `/admin/users/${UNKNOWN_ID}`, method === "PUT" ? { user_metadata: { a: 1 } } : undefined),
      404,
      "user_not_found",
    );
  });
});

describe("POST /admin/users", () => {
  it("creates a user in GoTrue's shape, normalizing the email and phone", async () => {
    const { create, clock, admin } = await adminApp();
    const user = await create({
      email: "Ada@Example.COM",
      phone: "1 555 010 0000",
      password,
      user_metadata: { name: "Ada" },
    });
    expect(user).toMatchObject({
      aud: "authenticated",
      role: "authenticated",
      email: "ada@example.com",
      phone: "+15550100000",
      app_metadata: { provider: "email", providers: ["email", "phone"] },
      user_metadata: { name: "Ada" },
      is_anonymous: false,
    });
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(user.email_confirmed_at).toBeUndefined();
    expect(user.banned_until).toBeUndefined();
    // Made at the same instant, the two are listed in the order of their ids.
    expect(user.identities.map((identity: { provider: string }) => identity.provider).sort()).toEqual([
      "email",
      "phone",
    ]);
    expect(user.created_at).toBe(clock.now().toISOString());
    expect(JSON.stringify(user)).not.toMatch(/password|hash/i);
    expect(await json(await admin("GET", `/admin/users/${user.id}`))).toEqual(user);
  });

  it("confirms with email_confirm, bans with ban_duration, and merges app_metadata", async () => {
    const { create, clock } = await adminApp();
    const user = await create({
      email: "banned@example.com",
      email_confirm: true,
      ban_duration: "24h",
      app_metadata: { plan: "pro" },
      role: "staff",
    });
    expect(user.email_confirmed_at).toMatch(ISO);
    expect(user.confirmed_at).toBe(user.email_confirmed_at);
    expect(user.banned_until).toBe(new Date(clock.now().getTime() + 24 * 3_600_000).toISOString());
    expect(user.app_metadata).toEqual({ provider: "email", providers: ["email"], plan: "pro" });
    expect(user.role).toBe("staff");
    const byPhone = await create({ phone: "+15550100001", phone_confirm: true });
    expect(byPhone).toMatchObject({
      email: "",
      phone: "+15550100001",
      app_metadata: { provider: "phone", providers: ["phone"] },
    });
    expect(byPhone.phone_confirmed_at).toMatch(ISO);
  });

  it("creates the user with the id POST /admin/users/<id> names", async () => {
    const { admin } = await adminApp();
    const response = await admin("POST", `/admin/users/${UNKNOWN_ID}`, { email: "chosen@example.com" });
    expect(response.status).toBe(200);
    expect((await json(response)).id).toBe(UNKNOWN_ID);
    expect((await json(await admin("GET", `/admin/users/${UNKNOWN_ID}`))).email).toBe("chosen@example.com");
  });

  it("refuses an address another user holds with 422 email_exists or phone_exists", async () => {
    const { create, admin } = await adminApp();
    await create({ email: "taken@example.com", phone: "+15550100002" });
    await expectError(await admin("POST", "/admin/users", { email: "TAKEN@example.com" }), 422, "email_exists");
    await expectError(await admin("POST", "/admin/users", { phone: "15550100002" }), 422, "phone_exists");
  });

  it("refuses bad requests with 400", async () => {
    const { admin } = await adminApp();
    await expectError(await admin("POST", "/admin/users", {}), 400, "validation_failed");
    await expectError(await admin("POST", "/admin/users", { user_metadata: { a: 1 } }), 400, "validation_failed");
    await expectError(
      await admin("POST", "/admin/users", { email: "a@example.com", ban_duration: "forever" }),
      400,
      "validation_failed",
    );
    await expectError(
      await admin("POST", "/admin/users", { email: "a@example.com", ban_duration: "-1h" }),
      400,
      "validation_failed",
    );
    await expectError(await admin("POST", "/admin/users", { email: 5 }), 400, "validation_failed");
    await expectError(
      await admin("POST", "/admin/users", { email: "a@example.com", email_confirm: "yes" }),
      400,
      "validation_failed",
    );
    await expectError(
      await admin("POST", "/admin/users", { email: "a@example.com", user_metadata: [1] }),
      400,
      "validation_failed",
    );
    await expectError(
      await admin("POST", "/admin/users", { email: "a@example.com", app_metadata: ["x"] }),
      400,
      "validation_failed",
    );
    await expectError(
      await admin("POST", "/admin/users", { email: "a@example.com", id: "nope" }),
      400,
      "validation_failed",
    );
    await expectError(await admin("POST", "/admin/users", "{not json"), 400, "bad_json");
    await expectError(await admin("POST", "/admin/users"), 400, "bad_json");
  });
});

describe("GET /admin/users", () => {
  /** Five users, created a minute apart: 1 is the oldest. */
  async function withFiveUsers() {
    const app = await adminApp();
    const created = [];
    for (const n of [1, 2, 3, 4, 5]) {
      created.push(
        await app.create({
          email: `user${n}@example.com`,
          phone: `+1555010000${n}`,
          user_metadata: { full_name: `Person ${n}` },
        }),
      );
      app.clock.advance({ minutes: 1 });
    }
    return { ...app, created };
  }
  const emails = (body: Record<string, any>) => body.users.map((user: { email: string }) => user.email);

  it("answers {users, aud}, newest first, with X-Total-Count and a Link to the next and last pages", async () => {
    const { admin } = await withFiveUsers();
    const response = await admin("GET", "/admin/users?per_page=2");
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(Object.keys(body)).toEqual(["users", "aud"]);
    expect(body.aud).toBe("authenticated");
    expect(emails(body)).toEqual(["user5@example.com", "user4@example.com"]);
    expect(body.users[0]).toMatchObject({ id: expect.any(String), identities: [expect.anything(), expect.anything()] });
    expect(response.headers.get("x-total-count")).toBe("5");
    expect(response.headers.get("link")).toMatch(
      /^<[^>]*\/admin\/users\?page=2&per_page=2>; rel="next", <[^>]*\/admin\/users\?page=3&per_page=2>; rel="last"$/,
    );
  });

  it("keeps page first in its links, and has no next link on the last page", async () => {
    const { admin } = await withFiveUsers();
    const middle = await admin("GET", "/admin/users?per_page=2&sort=created_at%20asc&page=2");
    expect(emails(await json(middle))).toEqual(["user3@example.com", "user4@example.com"]);
    const links = middle.headers.get("link")!;
    expect(links).toMatch(
      /^<[^>]*\?page=3&per_page=2&sort=[^>]+>; rel="next", <[^>]*\?page=3&per_page=2&sort=[^>]+>; rel="last"$/,
    );
    // auth-js reads the number right after the first "=" of each link.
    expect([...links.matchAll(/<[^?]*\?[^=]*=(\d)/g)].map((match) => match[1])).toEqual(["3", "3"]);

    const last = await admin("GET", "/admin/users?page=3&per_page=2");
    expect(emails(await json(last))).toEqual(["user1@example.com"]);
    expect(last.headers.get("link")).toMatch(/^<[^>]*\/admin\/users\?page=3&per_page=2>; rel="last"$/);
    expect(last.headers.get("x-total-count")).toBe("5");
  });

  it("reads an empty per_page as the default, and refuses a page that is not a number", async () => {
    const { admin } = await withFiveUsers();
    const response = await admin("GET", "/admin/users?per_page=&page=");
    expect(response.status).toBe(200);
    expect((await json(response)).users).toHaveLength(5);
    expect(response.headers.get("link")).toMatch(/\?page=1&per_page=50>; rel="last"$/);
    await expectError(await admin("GET", "/admin/users?page=abc"), 400, "validation_failed");
    await expectError(await admin("GET", "/admin/users?per_page=-1"), 400, "validation_failed");
  });

  it("orders by created_at asc when asked, and refuses any other sort", async () => {
    const { admin } = await withFiveUsers();
    expect(emails(await json(await admin("GET", "/admin/users?sort=created_at%20asc")))).toEqual(
      [1, 2, 3, 4, 5].map((n) => `user${n}@example.com`),
    );
    expect(emails(await json(await admin("GET", "/admin/users?sort=created_at%20desc")))[0]).toBe("user5@example.com");
    for (const sort of ["email%20asc", "created_at%20sideways", "created_at%20asc%20extra"]) {
      await expectError(await admin("GET", `/admin/users?sort=${sort}`), 400, "validation_failed");
    }
  });

  it("filters by part of the email or full name, and looks up an exact email or phone", async () => {
    const { admin } = await withFiveUsers();
    const filtered = await admin("GET", "/admin/users?filter=USER2");
    expect(emails(await json(filtered))).toEqual(["user2@example.com"]);
    expect(filtered.headers.get("x-total-count")).toBe("1");
    expect(emails(await json(await admin("GET", "/admin/users?filter=person%203")))).toEqual(["user3@example.com"]);
    expect(emails(await json(await admin("GET", "/admin/users?filter=example.com")))).toHaveLength(5);
    expect(emails(await json(await admin("GET", "/admin/users?email=User4@Example.com")))).toEqual([
      "user4@example.com",
    ]);
    expect(emails(await json(await admin("GET", "/admin/users?email=user4@example")))).toEqual([]);
    expect(emails(await json(await admin("GET", "/admin/users?phone=%2B15550100001")))).toEqual(["user1@example.com"]);
    expect(emails(await json(await admin("GET", "/admin/users?phone=15550100001")))).toEqual(["user1@example.com"]);
  });
});

describe("PUT /admin/users/<id>", () => {
  it("merges user_metadata and app_metadata, a null removing a key", async () => {
    const { create, admin } = await adminApp();
    const user = await create({
      email: "meta@example.com",
      user_metadata: { a: 1, b: 2 },
      app_metadata: { tier: "free" },
    });
    const response = await admin("PUT", `/admin/users/${user.id}`, {
      user_metadata: { b: null, c: 3 },
      app_metadata: { tier: "pro" },
    });
    expect(response.status).toBe(200);
    const updated = await json(response);
    expect(updated.user_metadata).toEqual({ a: 1, c: 3 });
    expect(updated.app_metadata).toEqual({ provider: "email", providers: ["email"], tier: "pro" });
    expect(await json(await admin("GET", `/admin/users/${user.id}`))).toEqual(updated);
  });

  it("bans with ban_duration, which ends the user's sessions, and lifts a ban with none", async () => {
    const { send, admin, clock } = await adminApp();
    const session = await json(await send("POST", "/signup", { email: "banned@example.com", password }));
    const banned = await json(await admin("PUT", `/admin/users/${session.user.id}`, { ban_duration: "100h30m" }));
    expect(banned.banned_until).toBe(new Date(clock.now().getTime() + (100 * 60 + 30) * 60_000).toISOString());

    await expectError(await send("GET", "/user", undefined, bearer(session.access_token)), 403, "user_banned");
    const refresh = () => send("POST", "/token?grant_type=refresh_token", { refresh_token: session.refresh_token });
    await expectError(await refresh(), 400, "user_banned");
    await expectError(
      await send("POST", "/token?grant_type=password", { email: "banned@example.com", password }),
      400,
      "user_banned",
    );

    const unbanned = await json(await admin("PUT", `/admin/users/${session.user.id}`, { ban_duration: "none" }));
    expect(unbanned.banned_until).toBeUndefined();
    // The ban ended the session for good: lifting it does not revive its tokens.
    await expectError(await send("GET", "/user", undefined, bearer(session.access_token)), 403, "session_expired");
    await expectError(await refresh(), 400, "session_expired");
    expect((await send("POST", "/token?grant_type=password", { email: "banned@example.com", password })).status).toBe(
      200,
    );
  });

  it("checks a new password against the policy (422 weak_password), and a bad ban_duration (400)", async () => {
    const { create, admin, send } = await adminApp();
    const user = await create({ email: "pw@example.com", password, email_confirm: true });
    const weak = await admin("PUT", `/admin/users/${user.id}`, { password: "abc" });
    await expectError(weak.clone(), 422, "weak_password");
    expect((await json(weak)).weak_password).toEqual({ reasons: ["length"] });
    await expectError(
      await admin("PUT", `/admin/users/${user.id}`, { ban_duration: "1 day" }),
      400,
      "validation_failed",
    );

    expect((await admin("PUT", `/admin/users/${user.id}`, { password: "a brand new password" })).status).toBe(200);
    expect(
      (await send("POST", "/token?grant_type=password", { email: "pw@example.com", password: "a brand new password" }))
        .status,
    ).toBe(200);
  });

  it("changes the email and phone at once, and confirms with email_confirm", async () => {
    const { create, admin } = await adminApp();
    const user = await create({ email: "before@example.com" });
    const updated = await json(
      await admin("PUT", `/admin/users/${user.id}`, {
        email: "After@Example.com",
        phone: "+15550100003",
        email_confirm: true,
      }),
    );
    expect(updated).toMatchObject({ email: "after@example.com", phone: "+15550100003" });
    expect(updated.new_email).toBeUndefined();
    expect(updated.email_confirmed_at).toMatch(ISO);
  });
});

describe("DELETE /admin/users/<id>", () => {
  it("deletes the user outright when there is no body, after which the user is not found", async () => {
    const { create, admin, send } = await adminApp();
    const user = await create({ email: "gone@example.com", password, email_confirm: true });
    const response = await admin("DELETE", `/admin/users/${user.id}`);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({});
    await expectError(await admin("GET", `/admin/users/${user.id}`), 404, "user_not_found");
    await expectError(await admin("DELETE", `/admin/users/${user.id}`), 404, "user_not_found");
    expect((await json(await admin("GET", "/admin/users?email=gone@example.com"))).users).toEqual([]);
    expect((await send("POST", "/token?grant_type=password", { email: "gone@example.com", password })).status).toBe(
      400,
    );
  });

  it("soft-deletes with should_soft_delete, keeping the row with deleted_at and no address", async () => {
    const { create, admin, send } = await adminApp();
    const user = await create({ email: "soft@example.com", password, email_confirm: true });
    const response = await admin("DELETE", `/admin/users/${user.id}`, { should_soft_delete: true });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({});

    const after = await json(await admin("GET", `/admin/users/${user.id}`));
    expect(after.deleted_at).toMatch(ISO);
    expect(after.email).toBe("");
    expect(after.identities).toEqual([]);
    expect((await send("POST", "/token?grant_type=password", { email: "soft@example.com", password })).status).toBe(
      400,
    );
    // The address is free again.
    expect((await admin("POST", "/admin/users", { email: "soft@example.com" })).status).toBe(200);
  });

  it("reads {} and should_soft_delete:false as a hard delete, and refuses a body that is not JSON", async () => {
    const { create, admin } = await adminApp();
    const first = await create({ email: "first@example.com" });
    const second = await create({ email: "second@example.com" });
    await expectError(await admin("DELETE", `/admin/users/${first.id}`, "{oops"), 400, "bad_json");
    expect((await admin("DELETE", `/admin/users/${first.id}`, {})).status).toBe(200);
    expect((await admin("DELETE", `/admin/users/${second.id}`, { should_soft_delete: false })).status).toBe(200);
    await expectError(await admin("GET", `/admin/users/${first.id}`), 404, "user_not_found");
    await expectError(await admin("GET", `/admin/users/${second.id}`), 404, "user_not_found");
  });
});
