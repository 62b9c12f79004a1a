import { AuthError } from "@latchkey/domain";
import { aUser } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const password = "secret-password";

async function withPendingSignup() {
  const app = createTestApp({ policy: { redirect: { allowList: ["http://localhost:3000/**"] } } });
  await app.send("POST", "/signup?redirect_to=http://localhost:3000/welcome", { email: "ada@example.com", password });
  const mail = (await app.lastEmail("ada@example.com", "confirmation"))!;
  return { ...app, mail };
}

const location = (response: Response) => new URL(response.headers.get("location")!);
const fragment = (url: URL) => Object.fromEntries(new URLSearchParams(url.hash.slice(1)));

describe("GET /verify", () => {
  it("redirects with 303 and the session in the fragment", async () => {
    const { send, mail } = await withPendingSignup();
    expect(mail.redirectTo).toBe("http://localhost:3000/welcome");
    const response = await send(
      "GET",
      `/verify?token=${mail.linkToken}&type=signup&redirect_to=${encodeURIComponent(mail.redirectTo)}`,
    );
    expect(response.status).toBe(303);
    const target = location(response);
    expect(`${target.origin}${target.pathname}`).toBe("http://localhost:3000/welcome");
    expect(Object.keys(fragment(target))).toEqual([
      "access_token",
      "expires_at",
      "expires_in",
      "refresh_token",
      "token_type",
      "type",
    ]);
  });

  it("is not run for HEAD, which link scanners send: the link is not used up, nor counted, and then signs in", async () => {
    const app = createTestApp({ policy: { requestLimits: { verify: { events: 1, perSeconds: 300 } } } });
    await app.send("POST", "/signup", { email: "ada@example.com", password });
    const mail = (await app.lastEmail("ada@example.com", "confirmation"))!;
    for (let i = 0; i < 3; i++) {
      const head = await app.app.request(`/verify?token=${mail.linkToken}&type=signup`, { method: "HEAD" });
      expect(head.status).toBe(405);
      expect(head.headers.get("allow")).toBe("GET, POST");
    }
    const followed = await app.send("GET", `/verify?token=${mail.linkToken}&type=signup`);
    expect(fragment(location(followed))).toHaveProperty("access_token");
  });

  it("redirects a failure with error, error_code and error_description, to SITE_URL when redirect_to is not allowed", async () => {
    const { send } = await withPendingSignup();
    const response = await send("GET", "/verify?token=wrong&type=signup&redirect_to=https://evil.example.net/");
    expect(response.status).toBe(303);
    const target = location(response);
    expect(target.origin).toBe("http://localhost:3000");
    expect(fragment(target)).toEqual({
      error: "access_denied",
      error_code: "otp_expired",
      error_description: "Email link is invalid or has expired",
    });
    expect(target.search).toBe("");
  });

  it("puts a PKCE link's error in the query too, where PKCE apps look", async () => {
    const { send } = await withPendingSignup();
    const target = location(await send("GET", "/verify?token=pkce_wrong&type=signup"));
    expect(target.searchParams.get("error_code")).toBe("otp_expired");
    expect(fragment(target)["error_code"]).toBe("otp_expired");
  });

  it("answers missing parameters as JSON, and an unsupported type as a redirect", async () => {
    const { send } = await withPendingSignup();
    expect((await json(await send("GET", "/verify?token=x"))).error_code).toBe("validation_failed");
    expect((await json(await send("GET", "/verify?type=signup"))).error_code).toBe("validation_failed");
    const unsupported = await send("GET", "/verify?token=x&type=sms");
    expect(unsupported.status).toBe(303);
    expect(fragment(location(unsupported))).toMatchObject({
      error: "invalid_request",
      error_code: "validation_failed",
    });
  });
});

describe("POST /verify", () => {
  it("answers the session with its type", async () => {
    const { send, mail } = await withPendingSignup();
    const body = await json(
      await send("POST", "/verify", { type: "signup", email: "ada@example.com", token: mail.otp }),
    );
    expect(body).toMatchObject({ type: "signup", token_type: "bearer", user: { email: "ada@example.com" } });
  });

  it("checks its parameters as GoTrue does", async () => {
    const { send, mail } = await withPendingSignup();
    const cases: [unknown, string][] = [
      [{ token: mail.otp, email: "ada@example.com" }, "Verify requires a verification type"],
      [{ type: "signup", email: "ada@example.com" }, "Verify requires a token or a token hash"],
      [
        { type: "signup", token: "1", token_hash: "2", email: "ada@example.com" },
        "Verify requires either a token or a token hash",
      ],
      [
        { type: "signup", token_hash: mail.linkToken, email: "ada@example.com" },
        "Only the token_hash and type should be provided",
      ],
      [{ type: "bogus", token: mail.otp, email: "ada@example.com" }, "Unsupported verification type"],
    ];
    for (const [body, message] of cases) {
      const response = await send("POST", "/verify", body);
      expect(response.status).toBe(400);
      expect((await json(response)).msg).toBe(message);
    }
  });

  it("answers a wrong code with 403 otp_expired", async () => {
    const { send, mail } = await withPendingSignup();
    const response = await send("POST", "/verify", {
      type: "signup",
      email: "ada@example.com",
      token: mail.otp === "000000" ? "111111" : "000000",
    });
    expect(response.status).toBe(403);
    expect(await json(response)).toEqual({
      code: 403,
      error_code: "otp_expired",
      msg: "Token has expired or is invalid",
    });
  });
});

describe("/otp, /magiclink, /recover, /resend", () => {
  it("answer {} and {message_id}", async () => {
    const app = createTestApp();
    await app.stores.users.insert(aUser({ email: "known@example.com" }));
    expect(await json(await app.send("POST", "/otp", { email: "known@example.com" }))).toEqual({});
    expect(await json(await app.send("POST", "/magiclink", { email: "other@example.com" }))).toEqual({});
    expect(await json(await app.send("POST", "/recover", { email: "third@example.com" }))).toEqual({});
    const resent = await json(await app.send("POST", "/resend", { type: "signup", email: "fourth@example.com" }));
    expect(Object.keys(resent)).toEqual(["message_id"]);
  });

  it("refuse a second request within the frequency with 429 and Retry-After", async () => {
    const { send } = createTestApp();
    await send("POST", "/recover", { email: "again@example.com" });
    const response = await send("POST", "/recover", { email: "again@example.com" });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("60");
    expect((await json(response)).error_code).toBe("over_email_send_rate_limit");
  });

  it("check their requests", async () => {
    const { send } = createTestApp();
    expect((await json(await send("POST", "/otp", {}))).msg).toBe("One of email or phone must be set");
    expect((await json(await send("POST", "/otp", { email: "a@example.com", phone: "+15550100" }))).msg).toBe(
      "Only an email address or phone number should be provided",
    );
    expect((await json(await send("POST", "/resend", { type: "nope", email: "a@example.com" }))).msg).toBe(
      "Missing one of these types: signup, email_change, sms, phone_change",
    );
    expect(
      (
        await send("POST", "/signup", {
          email: "p@example.com",
          password,
          code_challenge: "short",
          code_challenge_method: "s256",
        })
      ).status,
    ).toBe(400);
  });

  it("answer a disabled email provider with 422 on /otp and /magiclink, 400 on /recover", async () => {
    const { send } = createTestApp({ policy: { signup: { emailEnabled: false } } });
    expect((await send("POST", "/otp", { email: "a@example.com" })).status).toBe(422);
    expect((await send("POST", "/magiclink", { email: "a@example.com" })).status).toBe(422);
    expect((await send("POST", "/recover", { email: "a@example.com" })).status).toBe(400);
  });
});

describe("POST /invite and GET /reauthenticate", () => {
  it("refuse /invite without a token (401), with a user's token (403), and admit a service key", async () => {
    const app = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    expect((await app.send("POST", "/invite", { email: "x@example.com" })).status).toBe(401);
    const session = await json(await app.send("POST", "/signup", { email: "user@example.com", password }));
    const asUser = await app.send(
      "POST",
      "/invite",
      { email: "x@example.com" },
      { authorization: `Bearer ${session.access_token}` },
    );
    expect(asUser.status).toBe(403);
    expect((await json(asUser)).error_code).toBe("not_admin");
    const service = await app.ports.signer.sign({
      role: "service_role",
      exp: Math.floor(app.clock.now().getTime() / 1000) + 60,
    });
    const invited = await json(
      await app.send("POST", "/invite", { email: "x@example.com" }, { authorization: `Bearer ${service}` }),
    );
    expect(invited).toMatchObject({ email: "x@example.com" });
    expect(invited.invited_at).toBeTruthy();
    expect(invited.confirmation_sent_at).toBeTruthy();
  });

  it("answer /reauthenticate with {}, and 422 for an unconfirmed address", async () => {
    const app = createTestApp({ policy: { signup: { emailAutoconfirm: true } } });
    const session = await json(await app.send("POST", "/signup", { email: "reauth@example.com", password }));
    const bearer = { authorization: `Bearer ${session.access_token}` };
    // HEAD mails nothing: only the GET that follows does.
    expect((await app.app.request("/reauthenticate", { method: "HEAD", headers: bearer })).status).toBe(405);
    expect(await app.lastEmail("reauth@example.com", "reauthentication")).toBeUndefined();
    const response = await app.send("GET", "/reauthenticate", undefined, bearer);
    expect(await json(response)).toEqual({});
    expect(await app.lastEmail("reauth@example.com", "reauthentication")).toBeDefined();

    const unconfirmed = aUser({ email: "unconfirmed@example.com", emailConfirmedAt: null });
    await app.stores.users.insert(unconfirmed);
    const token = await app.ports.signer.sign({
      sub: unconfirmed.id,
      aud: "authenticated",
      role: "authenticated",
      exp: Math.floor(app.clock.now().getTime() / 1000) + 60,
    });
    const refused = await app.send("GET", "/reauthenticate", undefined, { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(422);
    expect((await json(refused)).error_code).toBe("email_not_confirmed");
  });
});

describe("POST /token?grant_type=pkce", () => {
  it("answers missing and unknown codes as GoTrue does", async () => {
    const { send } = createTestApp();
    const empty = await send("POST", "/token?grant_type=pkce", { auth_code: "", code_verifier: "" });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error_code).toBe("validation_failed");
    const unknown = await send("POST", "/token?grant_type=pkce", { auth_code: "nope", code_verifier: "x".repeat(43) });
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error_code).toBe("flow_state_not_found");
  });
});

describe("redirect_to on every route that mails a link", () => {
  const allowed = "http://localhost:3000/next?step=2";
  const evil = "https://evil.example.net/steal";

  /** Sends one request of each route for `target`, and answers where each mailed link would lead. */
  async function linkTargets(target: string): Promise<Record<string, string | undefined>> {
    const app = createTestApp({ policy: { redirect: { allowList: ["http://localhost:3000/**"] } } });
    const query = `?redirect_to=${encodeURIComponent(target)}`;
    const passwordHash = await app.hasher.hash(password);
    await app.stores.users.insert(aUser({ email: "known@example.com", passwordHash }));
    await app.stores.users.insert(aUser({ email: "mover@example.com", passwordHash }));
    await app.stores.users.insert(aUser({ email: "signs-in@example.com" }));
    await app.send("POST", `/recover${query}`, { email: "known@example.com" });
    await app.send("POST", `/otp${query}`, { email: "signs-in@example.com" });
    await app.send("POST", `/signup${query}`, { email: "pending@example.com", password });
    app.clock.advance({ seconds: 900 });
    await app.send("POST", `/resend${query}`, { type: "signup", email: "pending@example.com" });
    const service = await app.ports.signer.sign({
      role: "service_role",
      exp: Math.floor(app.clock.now().getTime() / 1000) + 60,
    });
    const session = await json(
      await app.send("POST", "/token?grant_type=password", { email: "mover@example.com", password }),
    );
    await app.send("POST", `/invite${query}`, { email: "invitee@example.com" }, { authorization: `Bearer ${service}` });
    await app.send(
      "PUT",
      `/user${query}`,
      { email: "moved@example.com" },
      { authorization: `Bearer ${session.access_token}` },
    );

    const confirmations = (await app.emails()).filter((mail) => mail.to === "pending@example.com");
    return {
      recover: (await app.lastEmail("known@example.com", "recovery"))?.redirectTo,
      otp: (await app.lastEmail("signs-in@example.com", "magic_link"))?.redirectTo,
      signup: confirmations.length === 2 && "redirectTo" in confirmations[0]! ? confirmations[0].redirectTo : undefined,
      resend: confirmations.length === 2 && "redirectTo" in confirmations[1]! ? confirmations[1].redirectTo : undefined,
      invite: (await app.lastEmail("invitee@example.com", "invite"))?.redirectTo,
      user: (await app.lastEmail("moved@example.com", "email_change"))?.redirectTo,
    };
  }

  it("is honoured exactly when allowed, and replaced by SITE_URL when not", async () => {
    const routes = ["recover", "otp", "signup", "resend", "invite", "user"];
    expect(await linkTargets(allowed)).toEqual(Object.fromEntries(routes.map((route) => [route, allowed])));
    expect(await linkTargets(evil)).toEqual(
      Object.fromEntries(routes.map((route) => [route, "http://localhost:3000"])),
    );
  });
});

describe("phone codes over HTTP", () => {
  it("/otp with a phone answers {message_id}, and POST /verify type sms takes the number and the code", async () => {
    const app = createTestApp();
    const sent = await app.send("POST", "/otp", { phone: "1 555 010 0000" });
    expect(sent.status).toBe(200);
    expect(Object.keys(await json(sent))).toEqual(["message_id"]);
    const code = (await app.lastSms("+15550100000"))!.otp;
    const verified = await json(await app.send("POST", "/verify", { type: "sms", phone: "+15550100000", token: code }));
    expect(verified).toMatchObject({
      type: "sms",
      token_type: "bearer",
      user: { phone: expect.stringContaining("15550100000") },
    });
  });

  it("check phone requests as GoTrue does", async () => {
    const { send } = createTestApp();
    const withoutPhone = await send("POST", "/verify", { type: "sms", email: "a@example.com", token: "123456" });
    expect(withoutPhone.status).toBe(400);
    expect((await json(withoutPhone)).msg).toBe("Verify requires a phone number with the token");
    expect((await send("POST", "/verify", { type: "sms", token_hash: "abc" })).status).toBe(400);
    expect(
      (
        await send("POST", "/otp", {
          phone: "+15550100000",
          code_challenge: "x".repeat(43),
          code_challenge_method: "s256",
        })
      ).status,
    ).toBe(400);
    expect((await send("POST", "/otp", { phone: "+15550100000", channel: "whatsapp" })).status).toBe(400);
    expect((await send("POST", "/otp", { phone: "not a number" })).status).toBe(400);
  });

  it("answer a number the provider refuses with 422 sms_send_failed, and log the provider's reason", async () => {
    const refusing = {
      send: async () => {
        throw new AuthError("sms_send_failed", "Error sending confirmation OTP to provider", {
          cause: new Error("twilio refused the SMS (HTTP 400, code 21211)"),
        });
      },
    };
    const { send, log } = createTestApp({ ports: { sms: refusing } });
    const refused = await send("POST", "/otp", { phone: "+15550100000" });
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({
      error_code: "sms_send_failed",
      msg: "Error sending confirmation OTP to provider",
    });
    const logged = log.lines.find((line) => line.level === "warn");
    expect(logged?.fields).toMatchObject({ code: "sms_send_failed", reason: expect.stringContaining("code 21211") });
    expect(logged?.fields).not.toHaveProperty("err");
  });

  it("answer a disabled phone provider with 400", async () => {
    const { send } = createTestApp({ policy: { signup: { phoneEnabled: false } } });
    const refused = await send("POST", "/otp", { phone: "+15550100000" });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error_code).toBe("phone_provider_disabled");
    expect((await send("POST", "/resend", { type: "sms", phone: "+15550100000" })).status).toBe(400);
  });
});
