import { AuthError, messages } from "@latchkey/domain";
import { FakeOAuthProvider } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createTestApp, type LogLine } from "./support.ts";

// A browser following a link or coming back from a provider is told a failure by redirect, not in a body: an outage
// there is answered with the status and code the body would have, and logged as the error handler logs it.

const OUTAGES = [
  {
    code: "service_unavailable",
    status: 503,
    message: messages.serviceUnavailable,
    oauthError: "temporarily_unavailable",
  },
  { code: "request_timeout", status: 504, message: messages.requestTimeout, oauthError: undefined },
] as const;

type Outage = (typeof OUTAGES)[number];

/** The database failing as the postgres adapter reports it: classified, its socket error the cause. */
const outage = ({ code, message }: Outage) =>
  new AuthError(code, message, { cause: new Error("connect ECONNREFUSED 127.0.0.1:5432"), retryAfterSeconds: 5 });

/** The failures logged, without the request line (whose level follows the status) and the request id. */
const failures = (lines: readonly LogLine[]) =>
  lines
    .filter((line) => line.message !== "request")
    .map(({ level, message, fields: { request_id: _id, ...fields } }) => ({ level, message, fields }));

/** What the error handler logs for `failure`, on an app of its own: the JSON exit's line, for comparison. */
async function loggedByJsonExit(failure: AuthError): Promise<unknown> {
  const { ports, send, log } = createTestApp();
  ports.tx.run = () => Promise.reject(failure);
  const response = await send("POST", "/verify", { type: "signup", token_hash: "any" });
  expect(response.headers.get("content-type")).toContain("application/json");
  return failures(log.lines);
}

function params(search: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(search));
}

describe.each(OUTAGES)("an outage ($status) answered by redirect", (kind) => {
  const told = {
    ...(kind.oauthError ? { error: kind.oauthError } : {}),
    error_code: kind.code,
  };

  it("GET /verify: sends the browser on with the error, and logs one line as the JSON exit does, without a stack", async () => {
    const { ports, send, log } = createTestApp({ policy: { redirect: { allowList: ["http://localhost:3000/**"] } } });
    ports.tx.run = () => Promise.reject(outage(kind));
    const response = await send(
      "GET",
      `/verify?token=any&type=signup&redirect_to=${encodeURIComponent("http://localhost:3000/welcome")}`,
    );
    expect(response.status).toBe(303);
    const target = new URL(response.headers.get("location")!);
    expect(target.origin + target.pathname).toBe("http://localhost:3000/welcome");
    expect(params(target.hash.slice(1))).toEqual({ ...told, error_description: "Unexpected failure" });

    const logged = failures(log.lines);
    expect(logged).toEqual([
      {
        level: "warn",
        message: "request failed: a dependency could not serve it",
        fields: { code: kind.code, reason: "connect ECONNREFUSED 127.0.0.1:5432" },
      },
    ]);
    expect(logged).toEqual(await loggedByJsonExit(outage(kind)));
  });

  it("GET /callback before the flow is found: to SITE_URL with the error, logged as the JSON exit logs it", async () => {
    const { stores, app, log } = createTestApp();
    Object.assign(stores, { oauthFlows: { ...stores.oauthFlows, take: () => Promise.reject(outage(kind)) } });
    const response = await app.request(`/callback?state=${crypto.randomUUID()}&code=c`);
    expect(response.status).toBe(303);
    const target = new URL(response.headers.get("location")!);
    expect(target.origin).toBe("http://localhost:3000");
    expect(params(target.search)).toEqual({ ...told, error_description: kind.message });
    expect(failures(log.lines)).toEqual(await loggedByJsonExit(outage(kind)));
  });

  it("GET /callback once the flow is found: to its target with the error, logged as the JSON exit logs it", async () => {
    const github = new FakeOAuthProvider();
    const { ports, app, log } = createTestApp({
      ports: { oauthProviders: new Map([["github", github]]) },
      policy: { redirect: { siteUrl: "http://localhost:3000", allowList: ["http://localhost:3000/**"] } },
    });
    const started = await app.request(
      `/authorize?provider=github&redirect_to=${encodeURIComponent("http://localhost:3000/welcome")}`,
    );
    const cookie = started.headers.get("set-cookie")!.split(";")[0]!;
    ports.tx.run = () => Promise.reject(outage(kind));
    const response = await app.request(`/callback?state=${github.lastState}&code=c`, { headers: { cookie } });
    expect(response.status).toBe(302);
    const target = new URL(response.headers.get("location")!);
    expect(target.origin + target.pathname).toBe("http://localhost:3000/welcome");
    const failure = { ...told, error_description: kind.message };
    expect(params(target.search)).toEqual(failure);
    expect(params(target.hash.slice(1))).toEqual(failure);
    expect(failures(log.lines)).toEqual(await loggedByJsonExit(outage(kind)));
  });
});
