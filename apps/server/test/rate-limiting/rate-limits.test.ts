import { randomNamespace } from "@latchkey/adapters-postgres/testing";
import { NO_TEST_REDIS, testRedisUrl } from "@latchkey/adapters-redis/testing";
import { startSmtpSink } from "@latchkey/adapters-smtp/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";

const REDIS_URL = await testRedisUrl();
const missingRedis = REDIS_URL === undefined ? NO_TEST_REDIS : undefined;

const started: TestServer[] = [];
afterEach(async () => {
  for (const server of started.splice(0).reverse()) await server.close();
});

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  started.push(server);
  return server;
}

const recover = (server: TestServer, email: string) => server.fetch("/recover", { method: "POST", json: { email } });

describe("rate limits across instances", () => {
  it("hold for every instance on one Redis: a second request through another instance waits as long", async (context) => {
    context.skip(missingRedis !== undefined, missingRedis);
    const namespace = randomNamespace();
    const mail = await startSmtpSink();
    try {
      const first = await start({ AUTH_REDIS_URL: REDIS_URL! }, {}, { namespace, mail, dropTablesOnClose: false });
      const second = await start({ AUTH_REDIS_URL: REDIS_URL! }, {}, { namespace, mail });
      expect((await recover(first, "shared@example.com")).status).toBe(200);
      const refused = await recover(second, "shared@example.com");
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ error_code: "over_email_send_rate_limit" });
    } finally {
      for (const server of started.splice(0).reverse()) await server.close();
      await mail.close();
    }
  });

  it("count one address's /token requests across instances on one Redis", async (context) => {
    context.skip(missingRedis !== undefined, missingRedis);
    const namespace = randomNamespace();
    const env = { AUTH_REDIS_URL: REDIS_URL!, AUTH_RATE_LIMIT_TOKEN_REFRESH: "2" };
    const first = await start(env, {}, { namespace, dropTablesOnClose: false });
    const second = await start(env, {}, { namespace });
    const refresh = (server: TestServer) =>
      server.fetch("/token?grant_type=refresh_token", { method: "POST", json: { refresh_token: "not-a-token" } });
    expect((await refresh(first)).status).toBe(400);
    expect((await refresh(second)).status).toBe(400);
    const refused = await refresh(first);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error_code: "over_request_rate_limit" });
  });

  it("lock one account's password grant on every instance after failures through another, until it is reset", async (context) => {
    context.skip(missingRedis !== undefined, missingRedis);
    const namespace = randomNamespace();
    const env = {
      AUTH_REDIS_URL: REDIS_URL!,
      AUTH_RATE_LIMIT_PASSWORD_FAILURES: "3",
      AUTH_RATE_LIMIT_HEADER: "X-Real-IP",
      AUTH_MAILER_AUTOCONFIRM: "true",
    };
    const first = await start(env, {}, { namespace, dropTablesOnClose: false });
    const second = await start(env, {}, { namespace });
    let client = 0;
    const signIn = (server: TestServer, email: string, password: string) =>
      server.fetch("/token?grant_type=password", {
        method: "POST",
        headers: { "X-Real-IP": `198.51.100.${++client}` },
        json: { email, password },
      });
    const email = "locked@example.com";
    const password = "the right password";
    const signedUp = await second.fetch("/signup", { method: "POST", json: { email, password } });
    expect(signedUp.status).toBe(200);
    const { access_token: accessToken } = (await signedUp.json()) as { access_token: string };

    // Failures through one instance, then a success through the other: the count is forgotten everywhere.
    for (let i = 0; i < 2; i++) expect((await signIn(first, email, `guess ${i}`)).status).toBe(400);
    expect((await signIn(second, email, password)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await signIn(first, email, `guess ${i}`)).status).toBe(400);
    expect((await signIn(second, email, password)).status).toBe(200);

    // Three failures through one instance, each from another client: the other refuses the right password.
    for (let i = 0; i < 3; i++) expect((await signIn(first, email, `guess ${i}`)).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await signIn(first, "nobody@example.com", `guess ${i}`)).status).toBe(400);
    const refused = await signIn(second, email, password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(890);
    expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(900);
    const refusal = await refused.json();
    expect(refusal).toMatchObject({ error_code: "over_request_rate_limit" });
    // An address nobody has is answered alike.
    const unknown = await signIn(second, "nobody@example.com", password);
    expect(unknown.status).toBe(429);
    expect(await unknown.json()).toEqual(refusal);

    // A new password through the one instance lifts the lock on the other.
    const changed = await first.fetch("/user", {
      method: "PUT",
      headers: { authorization: `Bearer ${accessToken}` },
      json: { password: "a new password" },
    });
    expect(changed.status).toBe(200);
    expect((await signIn(second, email, "a new password")).status).toBe(200);
  });

  it("still limit, in each instance's memory, while Redis cannot be reached, and say so in the log once", async () => {
    const server = await start({ AUTH_REDIS_URL: "redis://127.0.0.1:1" });
    expect((await recover(server, "offline@example.com")).status).toBe(200);
    expect((await recover(server, "offline@example.com")).status).toBe(429);
    expect((await recover(server, "other@example.com")).status).toBe(200);
    const fallbacks = server.logLines().filter((line) => String(line["msg"]).startsWith("rate limiter: Redis"));
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toMatchObject({ level: 40, redis: "127.0.0.1:1" });
    expect(fallbacks[0]?.["msg"]).toContain("cannot be reached");
  });
});
