import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, memoryStorage } from "./support.ts";

const LEAKED = "password123";
const sha1 = (password: string) => createHash("sha1").update(password).digest("hex").toUpperCase();
const fresh = () => `never leaked ${crypto.randomUUID()}`;

interface Received {
  readonly path: string;
  readonly padding: string | undefined;
  readonly userAgent: string | undefined;
}

/**
 * HaveIBeenPwned's range API played locally: padded ranges (count-0 lines) holding LEAKED's suffix, CRLF as the
 * service writes them. Down, it drops every connection unanswered.
 */
async function startRangeApi() {
  const received: Received[] = [];
  let down = false;
  const server: Server = createServer((req, res) => {
    received.push({
      path: req.url ?? "",
      padding: req.headers["add-padding"] as string,
      userAgent: req.headers["user-agent"],
    });
    if (down) return req.socket.destroy();
    const prefix = (req.url ?? "").slice("/range/".length);
    const lines = Array.from({ length: 800 }, (_, i) => `${i.toString(16).toUpperCase().padStart(35, "F")}:0`);
    if (sha1(LEAKED).startsWith(prefix)) lines.splice(400, 0, `${sha1(LEAKED).slice(5)}:2254650`);
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end(lines.join("\r\n"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    setDown: (next: boolean) => {
      down = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let rangeApi: Awaited<ReturnType<typeof startRangeApi>>;
let server: TestServer;
let anon: string;

beforeAll(async () => {
  rangeApi = await startRangeApi();
  anon = await anonKey();
  server = await startTestServer({
    AUTH_PASSWORD_HIBP_ENABLED: "true",
    AUTH_PASSWORD_HIBP_URL: rangeApi.url,
    AUTH_MAILER_AUTOCONFIRM: "true",
  });
});
afterAll(async () => {
  await server?.close();
  await rangeApi?.close();
});

function app(on: TestServer = server): SupabaseClient {
  return createClient(on.url, anon, {
    realtime: { transport: ws as never },
    auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

describe("leaked-password protection, through the official client", () => {
  it("refuses a leaked password at signup as Supabase does, asking only for its hash's first 5 digits", async () => {
    const leaked = await app().auth.signUp({ email: "leaked@example.com", password: LEAKED });
    expect(leaked.error?.name).toBe("AuthWeakPasswordError");
    expect(leaked.error).toMatchObject({ status: 422, code: "weak_password", reasons: ["pwned"] });
    expect(leaked.error?.message).toBe(
      "Password is known to be weak and easy to guess, please choose a different one.",
    );
    expect(rangeApi.received.at(-1)).toEqual({
      path: `/range/${sha1(LEAKED).slice(0, 5)}`,
      padding: "true",
      userAgent: "https://github.com/supabase/gotrue",
    });
    const short = await app().auth.signUp({ email: "leaked@example.com", password: "abc" });
    expect(short.error).toMatchObject({ status: 422, code: "weak_password", reasons: ["length"] });
  });

  it("lets a clean password through, and refuses a leaked one for updateUser", async () => {
    const client = app();
    const signedUp = await client.auth.signUp({ email: "clean@example.com", password: fresh() });
    expect(signedUp.error).toBeNull();
    expect(signedUp.data.session).not.toBeNull();
    const refused = await client.auth.updateUser({ password: LEAKED });
    expect(refused.error?.name).toBe("AuthWeakPasswordError");
    expect(refused.error).toMatchObject({ status: 422, code: "weak_password", reasons: ["pwned"] });
    expect((await client.auth.updateUser({ password: fresh() })).error).toBeNull();
  });

  it("lets a password through unchecked when the service is down, with a warning in the log", async () => {
    rangeApi.setDown(true);
    try {
      const signedUp = await app().auth.signUp({ email: "unchecked@example.com", password: fresh() });
      expect(signedUp.error).toBeNull();
    } finally {
      rangeApi.setDown(false);
    }
    const warning = server.logLines().find((line) => String(line["msg"]).startsWith("Unable to perform password"));
    expect(warning).toMatchObject({
      // pino's warn
      level: 40,
      msg: "Unable to perform password strength check with HaveIBeenPwned.org, pwned passwords are being allowed",
    });
    expect(String(warning?.["reason"])).toMatch(/^range request failed: fetch failed/);
  });

  it("refuses the password with 503 when told to fail closed and the service cannot be asked", async () => {
    const closed = await startTestServer({
      AUTH_PASSWORD_HIBP_ENABLED: "true",
      AUTH_PASSWORD_HIBP_FAIL_CLOSED: "true",
      // Nothing listens there: the connection is refused.
      AUTH_PASSWORD_HIBP_URL: "http://127.0.0.1:9",
      AUTH_MAILER_AUTOCONFIRM: "true",
    });
    try {
      const refused = await app(closed).auth.signUp({ email: "closed@example.com", password: fresh() });
      expect(refused.error?.name).toBe("AuthRetryableFetchError");
      expect(refused.error).toMatchObject({
        status: 503,
        message: "Unable to perform password strength check with HaveIBeenPwned.org.",
      });
      const raw = await fetch(`${closed.url}/signup`, {
        method: "POST",
        headers: { apikey: anon, "Content-Type": "application/json" },
        body: JSON.stringify({ email: "closed@example.com", password: fresh() }),
      });
      expect([raw.status, raw.headers.get("x-sb-error-code"), raw.headers.get("retry-after")]).toEqual([
        503,
        "service_unavailable",
        "10",
      ]);
    } finally {
      await closed.close();
    }
  });
});
