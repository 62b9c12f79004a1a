import { createServer as createHttpServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, claimsOf, client } from "./support.ts";

// The third attack review's findings outside the OAuth flows (those are in oauth/identity-takeover.test.ts),
// replayed over HTTP with the official client.
const password = "correct horse battery";

describe("the third attack review, over HTTP", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** A confirmed account with `password`, signed in through the official client. */
  async function signedIn(email: string) {
    await (await adminApi(server)).createUser({ email, password, email_confirm: true });
    const auth = client(server);
    const { data, error } = await auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    return { auth, session: data.session! };
  }

  describe("a token re-signed for a foreign audience", () => {
    it("opens no route of the user's and ends no session", async () => {
      const { auth, session } = await signedIn("audience@example.com");
      // Another app that trusts the same secret, or a token minted for it, carries another audience.
      const foreign = await new SignJWT({ ...claimsOf(session.access_token), aud: "evil-audience" })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
      const bearer = { authorization: `Bearer ${foreign}` };
      for (const [method, path] of [
        ["POST", "/logout?scope=global"],
        ["GET", "/user"],
        ["PUT", "/user"],
        ["GET", "/reauthenticate"],
        ["POST", "/factors"],
      ] as const) {
        const refused = await server.fetch(path, { method, headers: bearer, json: method === "GET" ? undefined : {} });
        const body = (await refused.json()) as { error_code: string };
        expect([path, refused.status, body.error_code]).toEqual([path, 400, "validation_failed"]);
      }
      // The real session lives on.
      const { data, error } = await auth.refreshSession();
      expect(error).toBeNull();
      expect(data.session?.user.email).toBe("audience@example.com");
    });
  });
});

/** A JSON POST from `ip`, a loopback address of its own (127.0.0.x). */
interface PostFrom {
  readonly ip: string;
  readonly server: TestServer;
  readonly path: string;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

/** A POST from its own loopback address (127.0.0.x), as a client on another host would make it. */
function postFrom({
  ip,
  server,
  path,
  body,
  headers = {},
}: PostFrom): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const payload = JSON.stringify(body);
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        localAddress: ip,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text || "{}") }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

describe("M4: bursts of guesses from many addresses at once", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_RATE_LIMIT_PASSWORD_FAILURES: "20" });
  });
  afterAll(() => server.close());

  it("get no more wrong passwords of one account checked than RATE_LIMIT_PASSWORD_FAILURES", async () => {
    const email = "burst@example.com";
    await (await adminApi(server)).createUser({ email, password, email_confirm: true });
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        postFrom({
          ip: `127.0.0.${i + 2}`,
          server,
          path: "/token?grant_type=password",
          body: { email, password: `guess ${i}` },
        }),
      ),
    );
    const codes = answers.map((answer) => answer.body["error_code"]);
    expect(codes.filter((code) => code === "invalid_credentials")).toHaveLength(20);
    expect(codes.filter((code) => code === "over_request_rate_limit")).toHaveLength(40);
  });

  it("get no more wrong codes of one factor checked than its limit (10)", async () => {
    const { session } = await (async () => {
      const email = "totp-burst@example.com";
      await (await adminApi(server)).createUser({ email, password, email_confirm: true });
      const auth = client(server);
      const { data } = await auth.signInWithPassword({ email, password });
      return { session: data.session! };
    })();
    const bearer = { authorization: `Bearer ${session.access_token}` };
    const enrolled = await postFrom({
      ip: "127.0.0.1",
      server,
      path: "/factors",
      body: { factor_type: "totp" },
      headers: bearer,
    });
    const factorId = String(enrolled.body["id"]);
    // Each guess from its own address, with a challenge made from that address, as the challenge is bound to it.
    const ips = Array.from({ length: 40 }, (_, i) => `127.0.1.${i + 2}`);
    const challenges = await Promise.all(
      ips.map((ip) => postFrom({ ip, server, path: `/factors/${factorId}/challenge`, body: {}, headers: bearer })),
    );
    const answers = await Promise.all(
      ips.map((ip, i) =>
        postFrom({
          ip,
          server,
          path: `/factors/${factorId}/verify`,
          body: { challenge_id: challenges[i]!.body["id"], code: "000000" },
          headers: bearer,
        }),
      ),
    );
    const codes = answers.map((answer) => answer.body["error_code"]);
    expect(codes.filter((code) => code === "mfa_verification_failed").length).toBeLessThanOrEqual(10);
    expect(codes.filter((code) => code === "over_request_rate_limit").length).toBeGreaterThanOrEqual(30);
  });
});

/**
 * A reverse proxy as nginx with `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for` is: whatever
 * X-Forwarded-For the client sent, with the address the proxy saw appended.
 */
async function startAppendingProxy(target: TestServer): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target.url);
  const proxy = createHttpServer((incoming, outgoing) => {
    const seen = incoming.socket.remoteAddress ?? "";
    const forwarded = incoming.headers["x-forwarded-for"];
    const headers = { ...incoming.headers, "x-forwarded-for": forwarded ? `${forwarded}, ${seen}` : seen };
    const request = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    incoming.pipe(request);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

describe("M5: behind a proxy that appends to X-Forwarded-For", () => {
  it("keys the per-client limits on the address the proxy saw, whatever the client claims", async () => {
    const server = await startTestServer({ AUTH_RATE_LIMIT_HEADER: "X-Forwarded-For", AUTH_RATE_LIMIT_OTP: "2" });
    const proxy = await startAppendingProxy(server);
    try {
      const ask = (claimed: string) =>
        fetch(`${proxy.url}/otp`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": claimed },
          body: JSON.stringify({ email: "m5@example.com", create_user: false }),
        });
      const statuses = [];
      for (const claimed of ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"])
        statuses.push((await ask(claimed)).status);
      // Two requests a client, then refused: each claim a new address changed nothing.
      expect(statuses.slice(2)).toEqual([429, 429]);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});
