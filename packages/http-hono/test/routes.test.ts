import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const password = "secret-pw";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function signedUp(app: ReturnType<typeof createTestApp>, email = "ada@example.com") {
  const response = await app.send("POST", "/signup", { email, password });
  expect(response.status).toBe(200);
  return json(response);
}

describe("GET /health and /settings", () => {
  it("report liveness, and the public switches without secrets", async () => {
    const { send } = createTestApp();
    expect(await json(await send("GET", "/health"))).toMatchObject({ version: "test", name: "Latchkey" });
    const settings = await json(await send("GET", "/settings"));
    expect(settings).toEqual({
      external: { email: true, phone: true, anonymous_users: false, github: false },
      disable_signup: false,
      autoconfirm: false,
      mailer_autoconfirm: false,
      phone_autoconfirm: false,
      sms_provider: "",
      saml_enabled: false,
      saml_private_key_next_configured: false,
      passkeys_enabled: false,
    });
  });
});

describe("every answer", () => {
  it("forbids MIME sniffing and Referer, and caching by anyone, errors, redirects and preflights included", async () => {
    const { send, app } = createTestApp();
    const answers = [
      await send("GET", "/health"),
      await send("POST", "/signup", { email: "ada@example.com", password }),
      await send("POST", "/token?grant_type=password", { email: "ada@example.com", password: "wrong" }),
      await send("GET", "/verify?type=signup&token=nope&redirect_to=http://localhost:3000"),
      await send("GET", "/no-such-route"),
      await app.request("/token", { method: "OPTIONS", headers: { origin: "https://app.example.com" } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 400, 303, 404, 204]);
    for (const answer of answers) {
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
  });
});

describe("POST /signup", () => {
  it("answers a signup awaiting confirmation with the user, in GoTrue's shape", async () => {
    const app = createTestApp();
    const user = await signedUp(app, "Ada@Example.com");
    expect(Object.keys(user)).toEqual([
      "id",
      "aud",
      "role",
      "email",
      "phone",
      "confirmation_sent_at",
      "app_metadata",
      "user_metadata",
      "identities",
      "created_at",
      "updated_at",
      "is_anonymous",
    ]);
    expect(user).toMatchObject({
      aud: "authenticated",
      role: "authenticated",
      email: "ada@example.com",
      phone: "",
      is_anonymous: false,
    });
    expect(user.confirmation_sent_at).toMatch(ISO);
    expect(user.identities).toEqual([
      {
        identity_id: expect.any(String),
        id: user.id,
        user_id: user.id,
        identity_data: { sub: user.id, email: "ada@example.com", email_verified: false, phone_verified: false },
        provider: "email",
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        email: "ada@example.com",
      },
    ]);
    expect(JSON.stringify(user)).not.toMatch(/password|hash/i);
  });

  it("answers an autoconfirmed signup with a session carrying the user and expires_at", async () => {
    const { send, clock } = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    const session = await json(
      await send("POST", "/signup", { email: "auto@example.com", password, data: { plan: "pro" } }),
    );
    expect(session).toMatchObject({
      token_type: "bearer",
      expires_in: 3600,
      expires_at: Math.floor(clock.now().getTime() / 1000) + 3600,
    });
    expect(session.access_token.split(".")).toHaveLength(3);
    expect(session.refresh_token.length).toBeGreaterThanOrEqual(22);
    expect(session.user).toMatchObject({
      email: "auto@example.com",
      user_metadata: { plan: "pro", email_verified: true },
    });
    expect(session.user.email_confirmed_at).toMatch(ISO);
    expect(session.user.confirmed_at).toBe(session.user.email_confirmed_at);
    expect(session.type).toBeUndefined();
  });

  it("answers a duplicate under autoconfirm with 400 for a phone (the spec) and 422 for an email (GoTrue)", async () => {
    const { send } = createTestApp({ policy: { signup: { emailAutoconfirm: true, phoneAutoconfirm: true } } });
    await send("POST", "/signup", { phone: "+15550109000", password });
    const phone = await send("POST", "/signup", { phone: "15550109000", password });
    expect(phone.status).toBe(400);
    expect(await json(phone)).toEqual({ code: 400, error_code: "user_already_exists", msg: "User already registered" });

    await send("POST", "/signup", { email: "dup@example.com", password });
    const email = await send("POST", "/signup", { email: "DUP@example.com", password });
    expect(email.status).toBe(422);
    expect((await json(email)).error_code).toBe("user_already_exists");
  });

  it("answers a duplicate of a confirmed account, autoconfirm off, with a fabricated user of the same shape", async () => {
    const app = createTestApp();
    const { stores } = app;
    const { aUser } = await import("@latchkey/domain/testing");
    await stores.users.insert(aUser({ email: "owner@example.com" }));
    const fake = await signedUp(app, "owner@example.com");
    expect(fake.identities).toEqual([]);
    expect(fake.email).toBe("owner@example.com");
    expect(fake.confirmation_sent_at).toMatch(ISO);
  });

  it("stores phone numbers in E.164 and returns them with the plus", async () => {
    const { send } = createTestApp({ policy: { signup: { phoneAutoconfirm: true } } });
    const session = await json(await send("POST", "/signup", { phone: "44 20 7946 0958", password }));
    expect(session.user.phone).toBe("+442079460958");
  });

  it("keeps privileged fields out of a signup", async () => {
    const { send } = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    const session = await json(
      await send("POST", "/signup", {
        email: "sneaky@example.com",
        password,
        role: "service_role",
        app_metadata: { admin: true },
        id: "x",
      }),
    );
    expect(session.user.role).toBe("authenticated");
    expect(session.user.app_metadata).toEqual({ provider: "email", providers: ["email"] });
  });
});

describe("POST /token", () => {
  it("signs in with a password and refreshes the session", async () => {
    const { send } = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    await send("POST", "/signup", { email: "ada@example.com", password });
    const session = await json(
      await send("POST", "/token?grant_type=password", { email: "ada@example.com", password }),
    );
    expect(session.user.email).toBe("ada@example.com");

    const refreshed = await json(
      await send("POST", "/token?grant_type=refresh_token", { refresh_token: session.refresh_token }),
    );
    expect(refreshed.refresh_token).not.toBe(session.refresh_token);
    expect(refreshed.user.id).toBe(session.user.id);
  });

  it("answers a missing or unknown grant type as GoTrue does", async () => {
    const { send } = createTestApp();
    for (const path of ["/token", "/token?grant_type=magic", "/token?grant_type="]) {
      const response = await send("POST", path, {});
      expect(response.status).toBe(400);
      expect(await json(response)).toEqual({
        code: 400,
        error_code: "invalid_credentials",
        msg: "unsupported_grant_type",
      });
    }
  });

  it("answers an empty refresh token in the OAuth shape, and an unknown one as not found", async () => {
    const { send } = createTestApp();
    const empty = await send("POST", "/token?grant_type=refresh_token", {});
    expect(empty.status).toBe(400);
    expect(await json(empty)).toEqual({ error: "invalid_request", error_description: "refresh_token required" });
    const unknown = await send("POST", "/token?grant_type=refresh_token", { refresh_token: "abcdefghijkl" });
    expect(await json(unknown)).toEqual({
      code: 400,
      error_code: "refresh_token_not_found",
      msg: "Invalid Refresh Token: Refresh Token Not Found",
    });
  });

  it("answers a banned user with 400 user_banned here (403 elsewhere)", async () => {
    const { send, stores } = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    const session = await json(await send("POST", "/signup", { email: "banned@example.com", password }));
    const user = (await stores.users.findById(session.user.id))!;
    await stores.users.update({ ...user, bannedUntil: new Date("2099-01-01T00:00:00Z") });

    const signIn = await send("POST", "/token?grant_type=password", { email: "banned@example.com", password });
    expect(signIn.status).toBe(400);
    expect((await json(signIn)).error_code).toBe("user_banned");
    const refresh = await send("POST", "/token?grant_type=refresh_token", { refresh_token: session.refresh_token });
    expect(refresh.status).toBe(400);
    const getUser = await send("GET", "/user", undefined, { authorization: `Bearer ${session.access_token}` });
    expect(getUser.status).toBe(403);
    expect((await json(getUser)).error_code).toBe("user_banned");
  });

  it("answers a disabled provider with 422 here", async () => {
    const { send } = createTestApp({ policy: { signup: { phoneEnabled: false } } });
    const response = await send("POST", "/token?grant_type=password", { phone: "+15550100000", password });
    expect(response.status).toBe(422);
    expect((await json(response)).error_code).toBe("phone_provider_disabled");
  });
});

describe("GET and PUT /user, POST /logout", () => {
  async function signedIn() {
    const app = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    const session = await json(await app.send("POST", "/signup", { email: "ada@example.com", password }));
    const auth = { authorization: `Bearer ${session.access_token}` };
    return { ...app, session, auth };
  }

  it("returns the signed-in user", async () => {
    const { send, session, auth } = await signedIn();
    const response = await send("GET", "/user", undefined, auth);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual(session.user);
    expect((await send("GET", "/user", undefined, { authorization: `bearer ${session.access_token}` })).status).toBe(
      200,
    );
  });

  it("refuses a missing token with 401 and a bad one with 403 bad_jwt", async () => {
    const { send, session } = await signedIn();
    const none = await send("GET", "/user");
    expect(none.status).toBe(401);
    expect(await json(none)).toEqual({
      code: 401,
      error_code: "no_authorization",
      msg: "This endpoint requires a valid Bearer token",
    });
    for (const authorization of [`Bearer ${session.access_token}x`, "Bearer a.b.c", "Basic abc"]) {
      const response = await send("GET", "/user", undefined, { authorization });
      expect([401, 403]).toContain(response.status);
    }
    const forged = await send("GET", "/user", undefined, {
      authorization: `Bearer ${session.access_token.slice(0, -2)}xx`,
    });
    expect(forged.status).toBe(403);
    expect((await json(forged)).error_code).toBe("bad_jwt");
  });

  it("logs a refused token as the request's one short line, with its code and no stack", async () => {
    const { send, log } = await signedIn();
    log.lines.length = 0;
    await send("GET", "/user", undefined, { authorization: "Bearer a.b.c" });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({
      level: "info",
      message: "request",
      fields: { path: "/user", status: 403, error_code: "bad_jwt" },
    });
    expect(JSON.stringify(log.lines)).not.toContain("stack");
  });

  it("refuses a token for another audience than JWT_AUD on every user route, when no X-JWT-AUD names one", async () => {
    const { send, session, ports, auth } = await signedIn();
    const claims = JSON.parse(Buffer.from(session.access_token.split(".")[1], "base64url").toString()) as Record<
      string,
      unknown
    >;
    const other = await ports.signer.sign({ ...claims, aud: "another-app" });
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { data: { x: 1 } }],
    ] as const) {
      const refused = await send(method, "/user", body, { authorization: `Bearer ${other}` });
      expect(refused.status).toBe(400);
      expect(await json(refused)).toMatchObject({
        error_code: "validation_failed",
        msg: "Token audience doesn't match request audience",
      });
      expect(
        (await send(method, "/user", body, { authorization: `Bearer ${other}`, "x-jwt-aud": "another-app" })).status,
      ).toBe(200);
    }
    // Where GoTrue takes the token as it is, too: it signs no one out, and opens nothing.
    for (const [method, path] of [
      ["POST", "/logout?scope=global"],
      ["GET", "/reauthenticate"],
      ["POST", "/factors"],
      ["GET", "/user/identities/authorize?provider=github"],
      ["DELETE", `/user/identities/${crypto.randomUUID()}`],
    ] as const) {
      const refused = await send(method, path, method === "POST" ? {} : undefined, {
        authorization: `Bearer ${other}`,
      });
      expect([path, refused.status, (await json(refused)).error_code]).toEqual([path, 400, "validation_failed"]);
    }
    expect((await send("GET", "/user", undefined, auth)).status).toBe(200);
  });

  it("refuses a token for another audience than X-JWT-AUD names", async () => {
    const { send, auth } = await signedIn();
    const response = await send("GET", "/user", undefined, { ...auth, "x-jwt-aud": "another-app" });
    expect(response.status).toBe(400);
    expect((await json(response)).error_code).toBe("validation_failed");
  });

  it("updates data and password, returning the user", async () => {
    const { send, auth } = await signedIn();
    const updated = await json(
      await send("PUT", "/user", { data: { theme: "dark" }, password: "a new password" }, auth),
    );
    expect(updated.user_metadata).toMatchObject({ theme: "dark" });
    expect(
      (await send("POST", "/token?grant_type=password", { email: "ada@example.com", password: "a new password" }))
        .status,
    ).toBe(200);
  });

  it("records an email change as pending and shows it as new_email", async () => {
    const { send, auth } = await signedIn();
    const updated = await json(await send("PUT", "/user", { email: "Next@Example.com" }, auth));
    expect(updated.new_email).toBe("next@example.com");
    expect(updated.email).toBe("ada@example.com");
  });

  it("signs out with 204, after which the token and refresh token stop working", async () => {
    const { send, auth, session } = await signedIn();
    const response = await send("POST", "/logout", undefined, auth);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    const after = await send("GET", "/user", undefined, auth);
    expect(after.status).toBe(403);
    expect((await json(after)).error_code).toBe("session_not_found");
    const refresh = await send("POST", "/token?grant_type=refresh_token", { refresh_token: session.refresh_token });
    expect((await json(refresh)).error_code).toBe("refresh_token_not_found");
  });

  it("refuses an unknown logout scope", async () => {
    const { send, auth } = await signedIn();
    const response = await send("POST", "/logout?scope=everyone", undefined, auth);
    expect(response.status).toBe(400);
    expect((await json(response)).msg).toBe('Unsupported logout scope "everyone"');
  });
});
