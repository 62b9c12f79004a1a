import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";
import { freePort, resetOpenTelemetry, sample, serviceRoleToken, setProcessEnv } from "./observability-support.ts";
import { type ExportedSpan, type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from "./otlp-receiver.ts";

// A custom_access_token hook over HTTP, observed: tracing on (spans over OTLP/JSON to a collector in this process)
// and metrics on (scraped from the Prometheus endpoint). The OTEL_ variables the SDK reads itself are set in
// process.env for this file and restored after it.

const HOOK_SPAN = "auth hook custom_access_token";
const email = "hooked@example.com";
const password = "hooked-password-never-exported";
/** The hook's signing secret: in neither the spans nor the metrics. */
const secret = `v1,whsec_${randomBytes(32).toString("base64")}`;

let receiver: OtlpReceiver;
let restoreEnv: () => void = () => {};

/** The hook's endpoint: answers the claims it was sent plus `x: 1`, or 500 while `failing`. */
interface HookReceiver {
  readonly url: string;
  failing: boolean;
  /** How many calls it has answered. */
  calls: number;
  close(): Promise<void>;
}

async function startHookReceiver(): Promise<HookReceiver> {
  const state = { failing: false, calls: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      state.calls += 1;
      if (state.failing) {
        response.writeHead(500, { "content-type": "application/json" }).end('{"error":"down"}');
        return;
      }
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { claims: Record<string, unknown> };
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ claims: { ...payload.claims, x: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const env: Record<string, string> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    // Spans go out 50 ms after they end rather than 5 s.
    OTEL_BSP_SCHEDULE_DELAY: "50",
  };
  restoreEnv = setProcessEnv(env);
});

afterAll(async () => {
  restoreEnv();
  resetOpenTelemetry();
  await receiver.close();
});

describe("an HTTP custom_access_token hook, with tracing and metrics on", () => {
  let hook: HookReceiver;
  let server: TestServer;
  let scrape: () => Promise<string>;
  const signIn = () => server.fetch("/token?grant_type=password", { method: "POST", json: { email, password } });

  /** The hook's spans so far, once there are `count` of them. */
  const hookSpans = async (count: number) =>
    (await receiver.waitForSpans((all) => all.filter((span) => span.name === HOOK_SPAN).length >= count)).filter(
      (span) => span.name === HOOK_SPAN,
    );

  /** The request's span that `span` was made within, once exported: it ends, and goes out, after the hook's. */
  const parentOf = async (span: ExportedSpan) =>
    (await receiver.waitForSpans((all) => all.some((candidate) => candidate.spanId === span.parentSpanId))).find(
      (candidate) => candidate.spanId === span.parentSpanId,
    );

  beforeAll(async () => {
    hook = await startHookReceiver();
    const port = await freePort();
    server = await startTestServer({
      AUTH_TRACING_ENABLED: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      AUTH_METRICS_ENABLED: "true",
      AUTH_METRICS_EXPORTER: "prometheus",
      OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: "true",
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: hook.url,
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS: secret,
    });
    scrape = async () => (await fetch(`http://127.0.0.1:${port}/`)).text();
    // Made through the admin API, which issues no token: every hook call below is a sign-in's.
    const created = await server.fetch("/admin/users", {
      method: "POST",
      headers: { authorization: `Bearer ${await serviceRoleToken()}` },
      json: { email, password, email_confirm: true },
    });
    expect(created.status).toBe(200);
    expect(hook.calls).toBe(0);
  });
  afterAll(async () => {
    await server?.close();
    await hook?.close();
    resetOpenTelemetry();
  });

  it("makes a call that succeeds a CLIENT span of the request, named for the hook, of its name and kind", async () => {
    const response = await signIn();
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    expect((await server.verifyAccessToken(access_token)).payload).toMatchObject({ x: 1, email });
    expect(hook.calls).toBe(1);

    const [span] = await hookSpans(1);
    expect(span).toMatchObject({ kind: SPAN_KIND.client, statusCode: 0, scope: "latchkey" });
    expect(span?.attributes).toEqual({ "auth.hook.name": "custom_access_token", "auth.hook.kind": "http" });
    const request = await parentOf(span!);
    expect(request).toMatchObject({ name: "POST /token", kind: SPAN_KIND.server, traceId: span?.traceId });
  });

  it("makes a call that fails (500) a span with an error status and the code the client hears", async () => {
    hook.failing = true;
    try {
      const response = await signIn();
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({ error_code: "unexpected_failure" });
    } finally {
      hook.failing = false;
    }
    const failed = (await hookSpans(2)).find((span) => span.statusCode !== 0);
    expect(failed).toMatchObject({ kind: SPAN_KIND.client, statusCode: 2 });
    expect(failed?.attributes).toEqual({
      "auth.hook.name": "custom_access_token",
      "auth.hook.kind": "http",
      "error.type": "unexpected_failure",
    });
    expect(await parentOf(failed!)).toMatchObject({
      name: "POST /token",
      kind: SPAN_KIND.server,
      traceId: failed?.traceId,
    });
  });

  it("times each call by outcome and counts the failures by reason", async () => {
    const metrics = await scrape();
    const hookLabels = { hook: "custom_access_token" };
    expect(sample(metrics, "auth_hook_duration_count", { ...hookLabels, outcome: "success" })).toBe(1);
    expect(sample(metrics, "auth_hook_duration_count", { ...hookLabels, outcome: "failure" })).toBe(1);
    expect(sample(metrics, "auth_hook_duration_bucket", { ...hookLabels, outcome: "success", le: "+Inf" })).toBe(1);
    // Seconds, in the hook's own buckets.
    expect(metrics).toMatch(/auth_hook_duration_bucket\{[^}]*le="0\.005"/);
    expect(sample(metrics, "auth_hook_failures_total", { ...hookLabels, reason: "unexpected_failure" })).toBe(1);
  });

  it("exports neither the payload's address nor the secret, in spans or metrics", async () => {
    // Every span of both sign-ins, the requests' included, has gone out.
    await receiver.waitForSpans((all) => all.filter((span) => span.name === "POST /token").length >= 2);
    const exported = [...receiver.exports().map((request) => request.body.toString("utf8")), await scrape()];
    // What was looked through is what was exported: the hook's span and its metrics are in it.
    expect(exported.join("\n")).toContain("auth.hook.name");
    expect(exported.at(-1)).toContain("auth_hook_duration");
    const key = secret.slice("v1,whsec_".length);
    for (const text of exported) {
      for (const kept of [email, password, secret, key]) expect(text).not.toContain(kept);
    }
  });
});
