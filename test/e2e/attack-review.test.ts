import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, claimsOf, client, fragmentOf } from "./support.ts";

// The attacks of the hands-on review, replayed over HTTP against a server on real PostgreSQL with real mail. Each
// client comes from an address of its own (RATE_LIMIT_HEADER), as attackers and their victims do.
const password = "correct horse battery";
const from = (ip: string) => ({ "x-real-ip": ip });
const wrongFor = (code: string) => (code === "000000" ? "111111" : "000000");

describe("the attack review, over HTTP", () => {
  let server: TestServer;
  let templates: Server;
  beforeAll(async () => {
    // An operator's confirmation template that puts user data in a link, as the review found.
    templates = createServer((_request, response) =>
      response.end('<a href="{{ .Data.website }}">site</a> <a href="{{ .ConfirmationURL }}">confirm</a>'),
    );
    await new Promise<void>((resolve) => templates.listen(0, "127.0.0.1", resolve));
    server = await startTestServer({
      AUTH_RATE_LIMIT_HEADER: "X-Real-IP",
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
      AUTH_SMTP_MAX_FREQUENCY: "1",
      AUTH_MAILER_TEMPLATES_CONFIRMATION: `http://127.0.0.1:${(templates.address() as AddressInfo).port}/confirm.html`,
    });
  });
  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => templates.close(resolve));
  });

  const waitASecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

  /** A confirmed account with `password`, signed in through the official client. */
  async function victimSignedIn(email: string, ip: string) {
    const admin = await adminApi(server);
    const { data } = await admin.createUser({ email, password, email_confirm: true });
    const auth = client(server, { headers: from(ip) });
    const { data: signedIn, error } = await auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    return { auth, user: data.user!, accessToken: signedIn.session!.access_token };
  }

  describe("secure email change", () => {
    it("is not completed from the new address alone after wrong codes to the current one", async () => {
      const { user, accessToken } = await victimSignedIn("victim@example.com", "203.0.113.10");
      // The attacker holds the access token only.
      const attacker = { authorization: `Bearer ${accessToken}`, ...from("198.51.100.10") };
      expect(
        (await server.fetch("/user", { method: "PUT", headers: attacker, json: { email: "attacker@example.com" } }))
          .status,
      ).toBe(200);
      const toAttacker = await server.mail.waitFor("attacker@example.com");
      const toVictim = await server.mail.waitFor("victim@example.com");
      for (let i = 0; i < 5; i++) {
        const guess = await server.fetch("/verify", {
          method: "POST",
          headers: from("198.51.100.10"),
          json: { type: "email_change", email: "victim@example.com", token: wrongFor(toVictim.code!) },
        });
        expect(guess.status).toBe(403);
      }
      const landing = await server.followLink(toAttacker.link!);
      expect(fragmentOf(landing)["message"]).toBe(
        "Confirmation link accepted. Please proceed to confirm link sent to the other email",
      );
      const admin = await adminApi(server);
      expect((await admin.getUserById(user.id)).data.user?.email).toBe("victim@example.com");

      // Recovery still goes to the victim: the attacker's address has no account.
      const attackerClient = client(server, { headers: from("198.51.100.10") });
      expect((await attackerClient.resetPasswordForEmail("attacker@example.com")).error).toBeNull();
      expect(
        (await client(server, { headers: from("203.0.113.10") }).resetPasswordForEmail("victim@example.com")).error,
      ).toBeNull();
      await server.mail.waitFor("victim@example.com", (mail) => mail.subject === "Reset your password");
      expect(server.mail.to("attacker@example.com")).toHaveLength(1);

      // The victim's own link still works, and only the victim can allow the change.
      await server.followLink(toVictim.link!);
      expect((await admin.getUserById(user.id)).data.user?.email).toBe("attacker@example.com");
    });
  });

  describe("wrong codes sent by a stranger", () => {
    it("do not take a mailed link from its owner, and one client may send only so many", async () => {
      const owner = client(server, { headers: from("203.0.113.20") });
      await owner.signUp({ email: "owner@example.com", password });
      const mail = await server.mail.waitFor("owner@example.com");
      const stranger = client(server, { headers: from("198.51.100.20") });
      for (let i = 0; i < 6; i++) {
        const { error } = await stranger.verifyOtp({
          email: "owner@example.com",
          token: wrongFor(mail.code!),
          type: "email",
        });
        expect(error?.code).toBe("otp_expired");
      }
      // The code is dead, even for its owner; the link is not.
      expect(
        (await owner.verifyOtp({ email: "owner@example.com", token: mail.code!, type: "email" })).error?.code,
      ).toBe("otp_expired");
      expect(fragmentOf(await server.followLink(mail.link!))).toMatchObject({ type: "signup", token_type: "bearer" });

      // Past ten wrong codes in an hour, the same client is refused before anything is looked up.
      for (let i = 0; i < 4; i++)
        await stranger.verifyOtp({ email: `other-${i}@example.com`, token: "123456", type: "email" });
      const refused = await server.fetch("/verify", {
        method: "POST",
        headers: from("198.51.100.20"),
        json: { type: "email", email: "owner@example.com", token: "123456" },
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBeTruthy();
      expect(((await refused.json()) as { error_code: string }).error_code).toBe("over_request_rate_limit");
    });
  });

  describe("a repeated signup", () => {
    it("answers with the account's id and only what the caller sent, and mails an invitee nothing", async () => {
      const admin = await adminApi(server);
      const { data: invited } = await admin.inviteUserByEmail("invitee@example.com", { data: { team: "blue" } });
      const invitation = await server.mail.waitFor("invitee@example.com");
      const stranger = client(server, { headers: from("198.51.100.30") });
      const { data, error } = await stranger.signUp({
        email: "invitee@example.com",
        password: "stranger's choice",
        options: { data: { team: "red" } },
      });
      expect(error).toBeNull();
      expect(data.user?.id).toBe(invited.user?.id);
      expect(data.user?.invited_at).toBeUndefined();
      expect(data.user?.user_metadata).toMatchObject({ team: "red" });
      expect(data.user?.identities).toHaveLength(1);

      // The invitation still works, without the stranger's password, with the admin's data.
      const landing = fragmentOf(await server.followLink(invitation.link!));
      expect(claimsOf(landing["access_token"]!)["user_metadata"]).toMatchObject({ team: "blue" });
      expect(
        (await stranger.signInWithPassword({ email: "invitee@example.com", password: "stranger's choice" })).error
          ?.code,
      ).toBe("invalid_credentials");
      expect(server.mail.to("invitee@example.com")).toHaveLength(1);
    });

    it("of an address awaiting confirmation shows none of what the first signup stored", async () => {
      const first = client(server, { headers: from("203.0.113.31") });
      const { data: original } = await first.signUp({
        email: "pending@example.com",
        password,
        options: { data: { name: "Ada" } },
      });
      await server.mail.waitFor("pending@example.com");
      await waitASecond();
      const second = client(server, { headers: from("198.51.100.31") });
      const { data } = await second.signUp({ email: "pending@example.com", password: "another password" });
      expect(data.user?.id).toBe(original.user?.id);
      expect(data.user?.user_metadata).not.toHaveProperty("name");
      expect(data.user?.created_at).not.toBe(original.user?.created_at);
    });
  });

  describe("an account someone else created for the address", () => {
    it("does not give its owner the creator's metadata", async () => {
      const attacker = client(server, { headers: from("198.51.100.40") });
      await attacker.signInWithOtp({
        email: "pre@example.com",
        options: { data: { display_name: "Send payments to attacker@example.net" } },
      });
      await server.mail.waitFor("pre@example.com");
      await waitASecond();
      const owner = client(server, { headers: from("203.0.113.40") });
      await owner.signInWithOtp({ email: "pre@example.com" });
      const mine = await server.mail.waitFor(
        "pre@example.com",
        (mail) => server.mail.to("pre@example.com").indexOf(mail) === 1,
      );
      const landing = fragmentOf(await server.followLink(mine.link!));
      const { data } = await owner.getUser(landing["access_token"]);
      expect(data.user?.email_confirmed_at).toBeTruthy();
      expect(data.user?.user_metadata).not.toHaveProperty("display_name");
    });
  });

  describe("the timing pads", () => {
    it("hold from the first request after a start: an unknown address's recovery takes a measured write", async () => {
      const fresh = await startTestServer();
      try {
        const calibrated = fresh.logLines().find((line) => line["msg"] === "timing pads calibrated");
        expect(calibrated).toMatchObject({ hash_ms: expect.any(Number), write_ms: expect.any(Number) });
        const started = performance.now();
        expect((await fresh.fetch("/recover", { method: "POST", json: { email: "nobody@example.com" } })).status).toBe(
          200,
        );
        expect(performance.now() - started).toBeGreaterThanOrEqual(calibrated!["write_ms"] as number);
      } finally {
        await fresh.close();
      }
    });
  });

  describe("RATE_LIMIT_EMAIL_SENT", () => {
    it("is not spent by requests for addresses nobody has", async () => {
      const limited = await startTestServer({ AUTH_RATE_LIMIT_HEADER: "X-Real-IP", AUTH_RATE_LIMIT_EMAIL_SENT: "2" });
      try {
        for (let i = 0; i < 30; i++) {
          const response = await limited.fetch("/recover", {
            method: "POST",
            headers: from(`198.51.100.${i}`),
            json: { email: `nobody-${i}@example.com` },
          });
          expect(response.status).toBe(200);
        }
        const owner = client(limited, { headers: from("203.0.113.50") });
        expect((await owner.signUp({ email: "still-mailed@example.com", password })).error).toBeNull();
        await limited.mail.waitFor("still-mailed@example.com");
      } finally {
        await limited.close();
      }
    });
  });

  describe("the reauthentication nonce", () => {
    it("is compared no more than five times, however many requests arrive at once", async () => {
      const strict = await startTestServer({ AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true" });
      try {
        const admin = await adminApi(strict);
        await admin.createUser({ email: "nonce@example.com", password, email_confirm: true });
        const auth = client(strict);
        const { data } = await auth.signInWithPassword({ email: "nonce@example.com", password });
        const bearer = { authorization: `Bearer ${data.session!.access_token}` };
        expect((await strict.fetch("/reauthenticate", { headers: bearer })).status).toBe(200);
        const nonce = (await strict.mail.waitFor("nonce@example.com")).code!;
        const burst = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            strict.fetch("/user", { method: "PUT", headers: bearer, json: { password: `new password ${i}`, nonce } }),
          ),
        );
        const changed = burst.filter((response) => response.status === 200).length;
        expect(changed).toBeGreaterThanOrEqual(1);
        expect(changed).toBeLessThanOrEqual(5);
      } finally {
        await strict.close();
      }
    });
  });

  describe("imported argon2 hashes", () => {
    it("are refused beyond a cost comparable to ours, with a clear message", async () => {
      const admin = await adminApi(server);
      const tail = "c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObGvqPsE4jVVA8";
      const { error } = await admin.createUser({
        email: "imported@example.com",
        password_hash: `$argon2id$v=19$m=1048576,t=20,p=16$${tail}`,
      } as never);
      expect(error?.status).toBe(400);
      expect(error?.message).toContain("argon2 hashes are accepted up to m=131072");
      const { error: fine } = await admin.createUser({
        email: "imported@example.com",
        password_hash: `$argon2id$v=19$m=65536,t=3,p=4$${tail}`,
      } as never);
      expect(fine).toBeNull();
    });
  });

  describe("operator templates", () => {
    it("let no javascript: URL from user data into a mail's links", async () => {
      const auth = client(server, { headers: from("203.0.113.60") });
      await auth.signUp({
        email: "templated@example.com",
        password,
        options: { data: { website: "javascript:alert(document.cookie)" } },
      });
      const mail = await server.mail.waitFor("templated@example.com");
      expect(mail.html).toContain('<a href="#ZgotmplZ">site</a>');
      expect(mail.html).not.toContain("javascript:");
      expect(mail.html).toContain('<a href="http://localhost:9999/verify?');
    });
  });

  describe("responses", () => {
    it("are never cached, and carry nosniff and no-referrer", async () => {
      const admin = await adminApi(server);
      await admin.createUser({ email: "headers@example.com", password, email_confirm: true });
      const token = await server.fetch("/token?grant_type=password", {
        method: "POST",
        json: { email: "headers@example.com", password },
      });
      const verified = await server.fetch("/verify", { method: "POST", json: { type: "signup", token_hash: "nope" } });
      const followed = await fetch(`${server.url}/verify?type=signup&token=nope`, { redirect: "manual" });
      const health = await server.fetch("/health");
      expect([token.status, verified.status, followed.status, health.status]).toEqual([200, 403, 303, 200]);
      for (const response of [token, verified, followed, health]) {
        expect(response.headers.get("cache-control")).toBe("no-store");
        expect(response.headers.get("x-content-type-options")).toBe("nosniff");
        expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      }
    });

    it("let a route that may be cached keep its own Cache-Control, and echo the Origin with Vary", async () => {
      const keys = await server.fetch("/.well-known/jwks.json", { headers: { origin: "https://app.example" } });
      expect(keys.status).toBe(200);
      expect(keys.headers.get("cache-control")).toMatch(/max-age/);
      expect(keys.headers.get("x-content-type-options")).toBe("nosniff");
      expect(keys.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(keys.headers.get("access-control-expose-headers")).toContain("X-Total-Count");
      expect(keys.headers.get("access-control-allow-credentials")).toBeNull();
      expect(keys.headers.get("vary")).toBe("Origin");

      const noOrigin = await server.fetch("/health");
      expect(noOrigin.headers.get("vary")).toBe("Origin");
      expect(noOrigin.headers.get("access-control-allow-origin")).toBeNull();

      const preflight = await server.fetch("/token", {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(preflight.headers.get("vary")).toBe("Origin, Access-Control-Request-Headers");
      expect(preflight.headers.get("cache-control")).toBe("no-store");
    });
  });

  describe("access tokens", () => {
    it("are refused when issued in the future", async () => {
      const { accessToken } = await victimSignedIn("future@example.com", "203.0.113.70");
      const claims = claimsOf(accessToken);
      const iat = Math.floor(Date.now() / 1000) + 3600;
      const future = await new SignJWT({ ...claims, iat, exp: iat + 3600 })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
      const refused = await server.fetch("/user", { headers: { authorization: `Bearer ${future}` } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error_code: "bad_jwt" });
      expect((await server.fetch("/user", { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200);
    });

    it("that are invalid are logged as the request's one short line, with no stack", async () => {
      const before = server.logLines().length;
      const refused = await server.fetch("/user", { headers: { authorization: "Bearer not.a.token" } });
      expect(refused.status).toBe(403);
      const written = server.logLines().slice(before);
      expect(written).toHaveLength(1);
      expect(written[0]).toMatchObject({ msg: "request", path: "/user", status: 403, error_code: "bad_jwt" });
      expect(JSON.stringify(written[0]).length).toBeLessThan(400);
      expect(JSON.stringify(written)).not.toContain("stack");
    });
  });
});
