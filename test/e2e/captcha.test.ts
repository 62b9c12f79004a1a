import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { newSamlPrivateKey } from "@latchkey/adapters-saml/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, serviceRoleKey } from "./support.ts";

const SECRET = "0x4AAAAAAA-site-secret";
const password = "correct horse battery";

/**
 * hCaptcha's siteverify played locally: it checks the request is the documented form POST with our secret and
 * the client's address, and passes each `pass-*` token once (tokens are single use), refusing the rest as hCaptcha
 * does. `mode` makes it hang or fail.
 */
async function startSiteverify() {
  const used = new Set<string>();
  const received: Record<string, string>[] = [];
  let mode: "normal" | "hang" | "broken" = "normal";
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push(form);
      if (mode === "hang") return;
      if (mode === "broken") {
        res.writeHead(502, { "Content-Type": "text/html" });
        return res.end("<html>Bad gateway</html>");
      }
      const wellFormed =
        req.method === "POST" &&
        req.headers["content-type"] === "application/x-www-form-urlencoded" &&
        form["secret"] === SECRET &&
        form["remoteip"] === "127.0.0.1";
      const token = form["response"] ?? "";
      const passes = wellFormed && token.startsWith("pass-") && !used.has(token);
      used.add(token);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify(
          passes
            ? { success: true, challenge_ts: new Date().toISOString(), hostname: "localhost" }
            : { success: false, "error-codes": [wellFormed ? "invalid-or-already-seen-response" : "bad-request"] },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    received,
    setMode: (next: typeof mode) => {
      mode = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let siteverify: Awaited<ReturnType<typeof startSiteverify>>;
let server: TestServer;
let tokens = 0;
const pass = () => `pass-${++tokens}`;

beforeAll(async () => {
  siteverify = await startSiteverify();
  server = await startTestServer({
    AUTH_SECURITY_CAPTCHA_ENABLED: "true",
    AUTH_SECURITY_CAPTCHA_SECRET: SECRET,
    AUTH_SECURITY_CAPTCHA_VERIFY_URL: siteverify.url,
    AUTH_SECURITY_CAPTCHA_TIMEOUT: "1",
    AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
    AUTH_MAILER_AUTOCONFIRM: "true",
    // For POST /sso, which captcha guards too.
    AUTH_SAML_ENABLED: "true",
    AUTH_SAML_PRIVATE_KEY: newSamlPrivateKey(),
  });
});
afterAll(async () => {
  await server.close();
  await siteverify.close();
});

describe("captcha, through the official client's captchaToken", () => {
  it("lets each protected method through with a token the provider passes", async () => {
    const app = client(server);
    const results = [
      await app.signUp({ email: "captcha@example.com", password, options: { captchaToken: pass() } }),
      await app.signInWithPassword({ email: "captcha@example.com", password, options: { captchaToken: pass() } }),
      await app.signInWithOtp({ email: "otp@example.com", options: { captchaToken: pass() } }),
      await app.resetPasswordForEmail("captcha@example.com", { captchaToken: pass() }),
      await app.resend({ type: "signup", email: "captcha@example.com", options: { captchaToken: pass() } }),
      await client(server).signInAnonymously({ options: { captchaToken: pass() } }),
    ];
    expect(results.map((result) => result.error?.code ?? null)).toEqual([null, null, null, null, null, null]);
    expect(siteverify.received.at(-1)).toEqual({ secret: SECRET, response: `pass-${tokens}`, remoteip: "127.0.0.1" });
  });

  it("refuses each protected method without a token, or with one the provider refuses", async () => {
    const app = client(server);
    const missing = [
      await app.signUp({ email: "nocaptcha@example.com", password }),
      await app.signInWithPassword({ email: "captcha@example.com", password }),
      await app.signInWithOtp({ email: "captcha@example.com" }),
      await app.resetPasswordForEmail("captcha@example.com"),
      await app.resend({ type: "signup", email: "captcha@example.com" }),
      await app.signInAnonymously(),
    ];
    for (const { error } of missing) {
      expect(error).toMatchObject({ status: 400, code: "captcha_failed" });
      expect(error?.message).toBe("captcha protection: request disallowed (no captcha_token found)");
    }
    const reused = `pass-${tokens}`;
    const refused = await app.signInWithPassword({
      email: "captcha@example.com",
      password,
      options: { captchaToken: reused },
    });
    expect(refused.error).toMatchObject({ status: 400, code: "captcha_failed" });
    expect(refused.error?.message).toBe("captcha protection: request disallowed (invalid-or-already-seen-response)");
    // Nothing was created for the refused signup.
    expect(
      (await app.signInWithPassword({ email: "nocaptcha@example.com", password, options: { captchaToken: pass() } }))
        .error?.code,
    ).toBe("invalid_credentials");
  });

  it("guards every protected endpoint alike: missing, refused, accepted, provider down, provider slow", async () => {
    // Each endpoint with a body it accepts; what the endpoint does after the check is not this test's business.
    const endpoints: [string, Record<string, unknown>][] = [
      ["/signup", { email: "table@example.com", password }],
      ["/token?grant_type=password", { email: "captcha@example.com", password }],
      ["/token?grant_type=web3", { chain: "ethereum", message: "m", signature: "s" }],
      ["/otp", { email: "table-otp@example.com" }],
      ["/magiclink", { email: "table-link@example.com" }],
      ["/recover", { email: "table-recover@example.com" }],
      ["/resend", { type: "signup", email: "table-resend@example.com" }],
      ["/sso", { domain: "table-sso.example" }],
    ];
    const answer = async (path: string, body: Record<string, unknown>, token?: string) => {
      const response = await server.fetch(path, {
        method: "POST",
        json: token === undefined ? body : { ...body, gotrue_meta_security: { captcha_token: token } },
      });
      const json = (await response.json()) as { error_code?: string; msg?: string };
      return [response.status, json.error_code ?? null] as const;
    };
    for (const [path, body] of endpoints) {
      expect([path, ...(await answer(path, body))]).toEqual([path, 400, "captcha_failed"]);
      expect([path, ...(await answer(path, body, "refused-token"))]).toEqual([path, 400, "captcha_failed"]);
      const [status, code] = await answer(path, body, pass());
      expect([path, code === "captcha_failed" || status >= 500]).toEqual([path, false]);
    }
    for (const mode of ["broken", "hang"] as const) {
      siteverify.setMode(mode);
      try {
        for (const [path, body] of endpoints) {
          expect([mode, path, ...(await answer(path, body, pass()))]).toEqual([mode, path, 500, "unexpected_failure"]);
        }
      } finally {
        siteverify.setMode("normal");
      }
    }
  });

  it("asks nothing of the refresh and pkce grants, nor of requests made with the service_role key", async () => {
    const app = client(server);
    await app.signInWithPassword({ email: "captcha@example.com", password, options: { captchaToken: pass() } });
    const asked = siteverify.received.length;
    expect((await app.refreshSession()).error).toBeNull();
    const pkce = await server.fetch("/token?grant_type=pkce", {
      method: "POST",
      json: { auth_code: "no-such-code", code_verifier: "v".repeat(43) },
    });
    expect(await pkce.json()).toMatchObject({ error_code: "flow_state_not_found" });
    const idToken = await server.fetch("/token?grant_type=id_token", { method: "POST", json: { id_token: "a.b.c" } });
    expect(((await idToken.json()) as { error_description: string }).error_description).toBe(
      "provider or client_id and issuer required",
    );
    const byServer = await server.fetch("/signup", {
      method: "POST",
      headers: { authorization: `Bearer ${await serviceRoleKey()}` },
      json: { email: "made-by-backend@example.com", password },
    });
    expect(byServer.status).toBe(200);
    expect(siteverify.received.length).toBe(asked);
  });

  it("answers 500 when the provider is down or too slow, and logs it", async () => {
    siteverify.setMode("broken");
    try {
      const down = await server.fetch("/otp", {
        method: "POST",
        json: { email: "x@example.com", gotrue_meta_security: { captcha_token: pass() } },
      });
      expect(down.status).toBe(500);
      expect(await down.json()).toMatchObject({
        error_code: "unexpected_failure",
        msg: "captcha verification process failed",
      });
      siteverify.setMode("hang");
      const started = Date.now();
      const slow = await client(server).signInWithOtp({ email: "x@example.com", options: { captchaToken: pass() } });
      expect(slow.error).toMatchObject({ status: 500 });
      // SECURITY_CAPTCHA_TIMEOUT is 1 s here: the request is not held for longer than that and a margin.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(server.logText()).toContain("hcaptcha answered 502 with what is not JSON");
    } finally {
      siteverify.setMode("normal");
    }
  });
});
