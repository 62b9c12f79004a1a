import type { TestAuthOptions } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const password = "secret-password";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SITE_URL = "http://localhost:3000";
const NO_USER_ID = "00000000-0000-0000-0000-000000000000";
const LINK_KEYS = ["action_link", "email_otp", "hashed_token", "verification_type", "redirect_to"];

/** The test app with redirects allowed under SITE_URL, a service_role key, and a confirmed user known@example.com. */
async function adminApp(options: TestAuthOptions = {}) {
  const app = createTestApp({ ...options, policy: { redirect: { allowList: [`${SITE_URL}/**`] }, ...options.policy } });
  const serviceKey = await app.ports.signer.sign({
    role: "service_role",
    exp: Math.floor(app.clock.now().getTime() / 1000) + 3600,
  });
  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.send(method, path, body, { authorization: `Bearer ${serviceKey}`, ...headers });
  const known = await json(
    await admin("POST", "/admin/users", { email: "known@example.com", password, email_confirm: true }),
  );
  const generate = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    admin("POST", "/admin/generate_link", body, headers);
  return { ...app, admin, known, generate };
}

async function expectError(response: Response, status: number, errorCode: string) {
  const body = await json(response);
  expect({ status: response.status, error_code: body.error_code }).toEqual({ status, error_code: errorCode });
}

/** Checks the generate-link shape and answers the body with its link's query. */
async function generated(response: Response) {
  expect(response.status).toBe(200);
  const body = await json(response);
  for (const key of [
    "id",
    "aud",
    "role",
    "email",
    "phone",
    "app_metadata",
    "user_metadata",
    "identities",
    "created_at",
    "updated_at",
    "is_anonymous",
  ]) {
    expect(body).toHaveProperty(key);
  }
  for (const key of LINK_KEYS) expect(typeof body[key]).toBe("string");
  expect(body.email_otp).toMatch(/^\d{6}$/);
  expect(body.hashed_token.length).toBeGreaterThanOrEqual(20);
  expect(body.action_link).toContain(`token=${body.hashed_token}`);
  expect(body.action_link).toContain("type=");
  expect(body.action_link).toContain("redirect_to=");
  const link = new URL(body.action_link);
  expect(link.searchParams.get("token")).toBe(body.hashed_token);
  expect(link.searchParams.get("redirect_to")).toBe(body.redirect_to);
  return { body, linkType: link.searchParams.get("type") };
}

describe("POST /admin/generate_link", () => {
  const cases: {
    type: string;
    email: string;
    extra?: Record<string, unknown>;
    linkType: string;
    check: (user: Record<string, any>) => void;
  }[] = [
    {
      type: "signup",
      email: "fresh@example.com",
      extra: { password, data: { plan: "pro" } },
      linkType: "signup",
      check: (user) => {
        expect(user.confirmation_sent_at).toMatch(ISO);
        expect(user.user_metadata).toMatchObject({ plan: "pro" });
        expect(user.email_confirmed_at).toBeUndefined();
      },
    },
    {
      type: "invite",
      email: "invitee@example.com",
      linkType: "invite",
      check: (user) => {
        expect(user.invited_at).toMatch(ISO);
        expect(user.confirmation_sent_at).toMatch(ISO);
      },
    },
    {
      type: "magiclink",
      email: "known@example.com",
      linkType: "magiclink",
      check: (user) => expect(user.recovery_sent_at).toMatch(ISO),
    },
    {
      type: "recovery",
      email: "Known@Example.com",
      linkType: "recovery",
      check: (user) => expect(user.recovery_sent_at).toMatch(ISO),
    },
    {
      type: "email_change_current",
      email: "known@example.com",
      extra: { new_email: "moved@example.com" },
      linkType: "email_change",
      check: (user) => {
        expect(user.new_email).toBe("moved@example.com");
        expect(user.email_change_sent_at).toMatch(ISO);
      },
    },
    {
      type: "email_change_new",
      email: "known@example.com",
      extra: { new_email: "Moved@Example.com" },
      linkType: "email_change",
      check: (user) => {
        expect(user.new_email).toBe("moved@example.com");
        expect(user.email).toBe("known@example.com");
      },
    },
  ];

  it.each(cases)(
    "answers a $type link with the user at top level, and the link's parts",
    async ({ type, email, extra, linkType, check }) => {
      const { generate, mailer } = await adminApp();
      const { body, linkType: actual } = await generated(await generate({ type, email, ...extra }));
      expect(body.email).toBe(email.toLowerCase());
      expect(body.verification_type).toBe(type);
      expect(actual).toBe(linkType);
      expect(body.redirect_to).toBe(SITE_URL);
      check(body);
      expect(JSON.stringify(body)).not.toMatch(/password/i);
      expect(mailer.sent).toEqual([]);
    },
  );

  it("answers a magic link for an unknown address as a signup, creating the user", async () => {
    const { generate, admin } = await adminApp();
    const { body, linkType } = await generated(await generate({ type: "magiclink", email: "Stranger@Example.com" }));
    expect(body.verification_type).toBe("signup");
    expect(linkType).toBe("signup");
    expect(body.email).toBe("stranger@example.com");
    expect((await json(await admin("GET", `/admin/users/${body.id}`))).email).toBe("stranger@example.com");
  });

  it("refuses bad requests with 400, and a recovery for an unknown address with 404", async () => {
    const { generate } = await adminApp();
    await expectError(await generate({ type: "bogus", email: "known@example.com" }), 400, "validation_failed");
    await expectError(await generate({ email: "known@example.com" }), 400, "validation_failed");
    await expectError(await generate({ type: "magiclink" }), 400, "validation_failed");
    await expectError(await generate({ type: "magiclink", email: "not an address" }), 400, "validation_failed");
    await expectError(
      await generate({ type: "recovery", email: "known@example.com", password }),
      400,
      "validation_failed",
    );
    await expectError(await generate({ type: "signup", email: "nopw@example.com" }), 400, "validation_failed");
    await expectError(await generate({ type: "magiclink", email: 5 }), 400, "validation_failed");
    await expectError(
      await generate({ type: "signup", email: "x@example.com", password, data: [1] }),
      400,
      "validation_failed",
    );
    await expectError(await generate({ type: "recovery", email: "nobody@example.com" }), 404, "user_not_found");
    await expectError(
      await generate({ type: "email_change_new", email: "nobody@example.com", new_email: "n@example.com" }),
      404,
      "user_not_found",
    );
  });

  it("refuses a signup or invitation for a confirmed address, and an email change to an address another user confirmed, with 422 email_exists", async () => {
    const { generate, admin } = await adminApp();
    await admin("POST", "/admin/users", { email: "taken@example.com", email_confirm: true });
    await expectError(await generate({ type: "signup", email: "known@example.com", password }), 422, "email_exists");
    await expectError(await generate({ type: "invite", email: "known@example.com" }), 422, "email_exists");
    await expectError(
      await generate({ type: "email_change_new", email: "known@example.com", new_email: "taken@example.com" }),
      422,
      "email_exists",
    );
  });

  it("honours an allowed redirect_to, and the camel-cased redirectTo auth-js sends, and falls back to SITE_URL", async () => {
    const { generate } = await adminApp();
    const allowed = `${SITE_URL}/welcome?step=2`;
    const snake = await generated(
      await generate({ type: "magiclink", email: "known@example.com", redirect_to: allowed }),
    );
    expect(snake.body.redirect_to).toBe(allowed);
    const camel = await generated(
      await generate({ type: "recovery", email: "known@example.com", redirectTo: allowed }),
    );
    expect(camel.body.redirect_to).toBe(allowed);
    const query = await generated(await generate({ type: "recovery", email: "known@example.com" }));
    expect(query.body.redirect_to).toBe(SITE_URL);
    for (const evil of ["https://evil.example.net/steal", "javascript:alert(1)"]) {
      const refused = await generated(
        await generate({ type: "magiclink", email: "known@example.com", redirect_to: evil }),
      );
      expect(refused.body.redirect_to).toBe(SITE_URL);
      const camelRefused = await generated(
        await generate({ type: "magiclink", email: "known@example.com", redirectTo: evil }),
      );
      expect(camelRefused.body.redirect_to).toBe(SITE_URL);
    }
  });

  it.each(["magiclink", "recovery", "invite", "signup"])(
    "makes a %s link whose token POST /verify takes for a session",
    async (type) => {
      const { generate, send } = await adminApp();
      const email = type === "magiclink" || type === "recovery" ? "known@example.com" : `${type}@example.com`;
      const { body } = await generated(await generate({ type, email, ...(type === "signup" ? { password } : {}) }));
      const response = await send("POST", "/verify", { type: body.verification_type, token_hash: body.hashed_token });
      expect(response.status).toBe(200);
      const session = await json(response);
      expect(session).toMatchObject({
        token_type: "bearer",
        type: body.verification_type,
        user: { id: body.id, email },
      });
      expect(session.access_token.split(".")).toHaveLength(3);
      expect(session.refresh_token).toEqual(expect.any(String));
      expect(session.user.email_confirmed_at).toMatch(ISO);
      // Used once.
      await expectError(
        await send("POST", "/verify", { type: body.verification_type, token_hash: body.hashed_token }),
        403,
        "otp_expired",
      );
    },
  );

  it("makes a signup link that signs in with the password it was given", async () => {
    const { generate, send } = await adminApp();
    const { body } = await generated(await generate({ type: "signup", email: "pw@example.com", password }));
    expect((await send("POST", "/verify", { type: "signup", token_hash: body.hashed_token })).status).toBe(200);
    expect((await send("POST", "/token?grant_type=password", { email: "pw@example.com", password })).status).toBe(200);
  });

  it("makes an email change link that moves the address once both are confirmed", async () => {
    const { generate, send, admin, known } = await adminApp();
    const current = await generated(
      await generate({ type: "email_change_current", email: "known@example.com", new_email: "moved@example.com" }),
    );
    const next = await generated(
      await generate({ type: "email_change_new", email: "known@example.com", new_email: "moved@example.com" }),
    );
    const first = await json(
      await send("POST", "/verify", { type: "email_change", token_hash: current.body.hashed_token }),
    );
    expect(first).toEqual({
      msg: "Confirmation link accepted. Please proceed to confirm link sent to the other email",
      code: "200",
    });
    const session = await json(
      await send("POST", "/verify", { type: "email_change", token_hash: next.body.hashed_token }),
    );
    expect(session.user.email).toBe("moved@example.com");
    expect((await json(await admin("GET", `/admin/users/${known.id}`))).email).toBe("moved@example.com");
  });
});

describe("GET /admin/audit", () => {
  /** A user created and another deleted by the service key, a user update, and a signup by someone else. */
  async function withHistory() {
    const app = await adminApp();
    app.clock.advance({ seconds: 1 });
    const created = await json(
      await app.admin("POST", "/admin/users", { email: "audited@example.com", phone: "+15550100009" }),
    );
    app.clock.advance({ seconds: 1 });
    await app.admin("PUT", `/admin/users/${app.known.id}`, { user_metadata: { plan: "pro" } });
    app.clock.advance({ seconds: 1 });
    expect((await app.admin("DELETE", `/admin/users/${created.id}`)).status).toBe(200);
    app.clock.advance({ seconds: 1 });
    await app.send("POST", "/signup", { email: "self@example.com", password });
    return { ...app, created };
  }
  const actions = (entries: Record<string, any>[]) => entries.map((entry) => entry.payload.action);

  it("answers the entries newest first, in GoTrue's shape, with X-Total-Count", async () => {
    const { admin, created, clock } = await withHistory();
    const response = await admin("GET", "/admin/audit");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("5");
    const entries = (await response.json()) as Record<string, any>[];
    expect(Array.isArray(entries)).toBe(true);
    expect(actions(entries)).toEqual([
      "user_confirmation_requested",
      "user_deleted",
      "user_modified",
      "user_signedup",
      "user_signedup",
    ]);

    const deleted = entries[1]!;
    expect(deleted).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      payload: {
        actor_id: NO_USER_ID,
        actor_via_sso: false,
        actor_username: "service_role",
        action: "user_deleted",
        log_type: "team",
        traits: { user_id: created.id, user_email: "audited@example.com", user_phone: "+15550100009" },
      },
      created_at: new Date(clock.now().getTime() - 1000).toISOString(),
      ip_address: "198.51.100.4",
    });
    expect(entries[3]!.payload).toMatchObject({
      action: "user_signedup",
      log_type: "team",
      actor_username: "service_role",
      traits: { user_id: created.id },
    });
    expect(entries[2]!.payload).toMatchObject({ action: "user_modified", log_type: "user" });
    expect(entries.every((entry) => entry.created_at.match(ISO) && entry.ip_address === "198.51.100.4")).toBe(true);
  });

  it("filters with query=action:, type: and author:", async () => {
    const { admin } = await withHistory();
    const byAction = await admin("GET", "/admin/audit?query=action:user_deleted");
    expect(actions((await byAction.json()) as Record<string, any>[])).toEqual(["user_deleted"]);
    expect(byAction.headers.get("x-total-count")).toBe("1");
    expect(
      actions((await (await admin("GET", "/admin/audit?query=type:team")).json()) as Record<string, any>[]),
    ).toEqual(["user_deleted", "user_signedup", "user_signedup"]);
    const byAuthor = (await (await admin("GET", "/admin/audit?query=author:service")).json()) as Record<string, any>[];
    expect(actions(byAuthor)).toEqual(["user_deleted", "user_modified", "user_signedup", "user_signedup"]);
    expect(byAuthor.every((entry) => entry.payload.actor_username === "service_role")).toBe(true);
    const bySelf = (await (await admin("GET", "/admin/audit?query=author:self@")).json()) as Record<string, any>[];
    expect(bySelf.map((entry) => entry.payload.actor_username)).toEqual(["self@example.com"]);
  });

  it("pages like the user list, and refuses a bad query scope or page with 400", async () => {
    const { admin } = await withHistory();
    const page = await admin("GET", "/admin/audit?per_page=2&page=2");
    expect(actions((await page.json()) as Record<string, any>[])).toEqual(["user_modified", "user_signedup"]);
    expect(page.headers.get("x-total-count")).toBe("5");
    expect(page.headers.get("link")).toMatch(
      /^<[^>]*\/admin\/audit\?page=3&per_page=2>; rel="next", <[^>]*\/admin\/audit\?page=3&per_page=2>; rel="last"$/,
    );
    await expectError(await admin("GET", "/admin/audit?query=nonsense:x"), 400, "validation_failed");
    await expectError(await admin("GET", "/admin/audit?query=ip:198"), 400, "validation_failed");
    await expectError(await admin("GET", "/admin/audit?page=abc"), 400, "validation_failed");
  });
});
