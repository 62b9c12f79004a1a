import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { startSmtpSink } from "@latchkey/adapters-smtp/testing";
import { metrics } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../src/compose.ts";
import { startTestServer } from "../support/start-test-server.ts";
import { freePort, resetOpenTelemetry, sample, setProcessEnv } from "./observability-support.ts";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.ts";

// Metrics on: scraped from the Prometheus endpoint over HTTP, and pushed over OTLP/JSON to a collector in this
// process. OTEL_EXPORTER_OTLP_ENDPOINT, which the SDK reads itself, is set in process.env for this file only.

let receiver: OtlpReceiver;
let restoreEnv: () => void = () => {};

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  restoreEnv = setProcessEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
});

afterEach(resetOpenTelemetry);

afterAll(async () => {
  restoreEnv();
  await receiver.close();
});

describe("with METRICS_EXPORTER=prometheus", () => {
  it("serves the HTTP, runtime and process metrics at / and /metrics on the configured host and port", async () => {
    const port = await freePort();
    const server = await startTestServer({
      AUTH_METRICS_ENABLED: "true",
      AUTH_METRICS_EXPORTER: "prometheus",
      OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
    });
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expect(response.status).toBe(200);
      return response.text();
    };
    try {
      for (let i = 0; i < 3; i += 1) expect((await server.fetch("/settings")).status).toBe(200);
      expect((await server.fetch("/no/such/route")).status).toBe(404);
      // The SMTP server (the test's sink) is checked at start; its gauge has no value until that check ends, which
      // on a loaded machine may be after the first scrape.
      await expect.poll(async () => sample(await scrape(), "auth_smtp_available", {})).toBe(1);
      const first = await scrape();

      const settings = { code: "200", http_route: "/settings" };
      expect(sample(first, "http_status_codes_total", settings)).toBe(3);
      expect(sample(first, "http_status_codes_total", { code: "404", http_route: "noroute" })).toBe(1);
      expect(
        sample(first, "http_server_request_duration_bucket", {
          http_route: "/settings",
          http_request_method: "GET",
          http_response_status_code: "200",
          le: "+Inf",
        }),
      ).toBe(3);
      // Seconds, with OpenTelemetry's buckets rather than the SDK's millisecond ones.
      expect(first).toMatch(/http_server_request_duration_bucket\{[^}]*le="0\.005"/);
      expect(first).toMatch(/^(nodejs_eventloop_|v8js_)\w+/m);
      expect(sample(first, "process_memory_usage", {})).toBeGreaterThan(0);
      expect(sample(first, "process_cpu_time_total", { cpu_mode: "user" })).toBeGreaterThan(0);
      expect(sample(first, "auth_smtp_available", {})).toBe(1);
      if (server.config.db.url !== undefined) {
        // On PostgreSQL (TEST_DATABASE_URL), the pool: some connections open, none waiting.
        const idle = sample(first, "db_client_connection_count", { db_client_connection_state: "idle" }) ?? -1;
        const used = sample(first, "db_client_connection_count", { db_client_connection_state: "used" }) ?? -1;
        expect(idle).toBeGreaterThanOrEqual(0);
        expect(used).toBeGreaterThanOrEqual(0);
        expect(idle + used).toBeGreaterThan(0);
        expect(sample(first, "db_client_connection_pending_requests", {})).toBe(0);
      }
      expect(first).toMatch(new RegExp(`^target_info\\{[^}]*auth_version="${version.replaceAll(".", "\\.")}"`, "m"));

      await server.fetch("/settings");
      expect(sample(await scrape(), "http_status_codes_total", settings)).toBe(4);
      // At /metrics too, where Prometheus scrapes unless told otherwise; elsewhere nothing.
      const atMetrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(atMetrics.status).toBe(200);
      expect(sample(await atMetrics.text(), "http_status_codes_total", settings)).toBe(4);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
    // Closing the server closes the scrape endpoint.
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });

  it("stops the start when the port is taken", async () => {
    const taken: NetServer = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      await expect(
        startTestServer({
          AUTH_METRICS_ENABLED: "true",
          AUTH_METRICS_EXPORTER: "prometheus",
          OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
          OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
        }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("the auth flows' metrics", () => {
  /** A server with Prometheus on a free port, and its scrape. */
  async function scraped(env: Record<string, string>, options?: Parameters<typeof startTestServer>[2]) {
    const port = await freePort();
    const server = await startTestServer(
      {
        AUTH_METRICS_ENABLED: "true",
        AUTH_METRICS_EXPORTER: "prometheus",
        OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
        OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
        ...env,
      },
      {},
      options,
    );
    const scrape = async () => (await fetch(`http://127.0.0.1:${port}/`)).text();
    return { server, scrape };
  }
  const json = (body: unknown) => ({ method: "POST", json: body });

  it("count sign-ups, sign-ins, refreshes, refusals, mail sent and password hashes, and GoTrue's gauges", async () => {
    const { server, scrape } = await scraped({ AUTH_MAILER_AUTOCONFIRM: "true" });
    try {
      const email = "ada@example.com";
      const password = "correct-horse-battery";
      // The start hashed already, timing the hashes that pad answers: counted from here.
      const hashes = { operation: "hash", alg: "argon2id", le: "+Inf" };
      const hashedAtStart = sample(await scrape(), "auth_password_hash_duration_bucket", hashes) ?? 0;
      expect((await server.fetch("/signup", json({ email, password }))).status).toBe(200);
      const signedIn = await server.fetch("/token?grant_type=password", json({ email, password }));
      expect(signedIn.status).toBe(200);
      const { refresh_token } = (await signedIn.json()) as { refresh_token: string };
      const wrong = await server.fetch("/token?grant_type=password", json({ email, password: "not-the-password" }));
      expect(wrong.status).toBe(400);
      const refreshed = await server.fetch("/token?grant_type=refresh_token", json({ refresh_token }));
      expect(refreshed.status).toBe(200);
      // A magic link, then the same again within SMTP_MAX_FREQUENCY: refused by the address's send frequency.
      expect((await server.fetch("/magiclink", json({ email }))).status).toBe(200);
      expect((await server.fetch("/magiclink", json({ email }))).status).toBe(429);
      await server.mail.waitFor(email);
      // The delivery is counted once recorded, a moment after the mail server took it.
      const delivered = { channel: "email", kind: "magic_link" };
      let metrics = await scrape();
      for (
        let poll = 0;
        poll < 50 && sample(metrics, "auth_outbox_deliveries_total", delivered) === undefined;
        poll++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        metrics = await scrape();
      }
      expect(sample(metrics, "auth_sign_ups_total", { provider: "email" })).toBe(1);
      // The signup signed in (autoconfirmed), then the password grant did.
      expect(sample(metrics, "auth_sign_ins_total", { method: "password" })).toBe(2);
      expect(sample(metrics, "auth_token_refreshes_total", { rotated: "true" })).toBe(1);
      expect(sample(metrics, "auth_rate_limit_refusals_total", { limit: "email_frequency" })).toBe(1);
      expect(sample(metrics, "auth_outbox_deliveries_total", delivered)).toBe(1);
      expect(sample(metrics, "global_auth_email_send_operations_total", { type: "magiclink" })).toBe(1);
      expect(sample(metrics, "auth_outbox_pending", { channel: "email" })).toBe(0);
      expect(sample(metrics, "auth_outbox_oldest_pending_age", { channel: "sms" })).toBe(0);
      // One hash at signup; two verifications, one of them a wrong password.
      expect(sample(metrics, "auth_password_hash_duration_bucket", hashes)).toBe(hashedAtStart + 1);
      expect(sample(metrics, "gotrue_generate_from_password_completed_total", { alg: "argon2id" })).toBe(
        hashedAtStart + 1,
      );
      expect(sample(metrics, "auth_password_hash_duration_count", { operation: "verify" })).toBe(2);
      expect(sample(metrics, "gotrue_compare_hash_and_password_completed_total", { match: "true" })).toBe(1);
      expect(sample(metrics, "gotrue_compare_hash_and_password_completed_total", { match: "false" })).toBe(1);
      expect(sample(metrics, "gotrue_running", {})).toBe(1);
      expect(sample(metrics, "global_auth_version_major", {})).toBe(Number(version.split(".")[0]));

      // Moving: a second refresh, of the token just replaced, is answered within the reuse interval.
      expect((await server.fetch("/token?grant_type=refresh_token", json({ refresh_token }))).status).toBe(200);
      expect(sample(await scrape(), "auth_token_refreshes_total", { rotated: "false" })).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("count failed deliveries, and show the backlog they leave and how long it has waited", async () => {
    const refusing = await startSmtpSink({ rejectRcpt: { message: "try again later", responseCode: 451 } });
    const { server, scrape } = await scraped({}, { mail: refusing });
    try {
      expect((await server.fetch("/otp", json({ email: "grace@example.com" }))).status).toBe(200);
      const failed = { channel: "email", kind: "confirmation", will_retry: "true" };
      let metrics = "";
      for (let attempt = 0; attempt < 100 && sample(metrics, "auth_outbox_failures_total", failed) === undefined; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        metrics = await scrape();
        attempt += 1;
      }
      expect(sample(metrics, "auth_outbox_failures_total", failed)).toBe(1);
      expect(sample(metrics, "global_auth_email_send_errors_total", { type: "signup" })).toBe(1);
      expect(sample(metrics, "auth_sign_ups_total", { provider: "email" })).toBe(1);
      expect(sample(metrics, "auth_outbox_pending", { channel: "email" })).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(sample(await scrape(), "auth_outbox_oldest_pending_age", { channel: "email" })).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
      await refusing.close();
    }
  });
});

describe("with METRICS_EXPORTER=opentelemetry", () => {
  it("pushes the metrics over OTLP with the metrics protocol, the last collection when the server closes", async () => {
    const server = await startTestServer({
      AUTH_METRICS_ENABLED: "true",
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
    });
    try {
      expect((await server.fetch("/settings")).status).toBe(200);
      expect((await server.fetch("/health")).status).toBe(200);
    } finally {
      await server.close();
    }
    const pushed = receiver.received.filter((request) => request.path === "/v1/metrics");
    expect(pushed.length).toBeGreaterThan(0);
    expect(pushed[0]?.headers["content-type"]).toBe("application/json");
    const bodies = pushed.map((request) => JSON.parse(request.body.toString("utf8")) as OtlpMetrics);
    const names = new Set(
      bodies.flatMap((body) =>
        body.resourceMetrics.flatMap((resource) =>
          resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name)),
        ),
      ),
    );
    expect([...names]).toEqual(
      expect.arrayContaining(["http.server.request.duration", "http_status_codes", "process.memory.usage"]),
    );
    expect([...names].some((name) => name.startsWith("nodejs.eventloop.") || name.startsWith("v8js."))).toBe(true);
    const text = pushed.map((request) => request.body.toString("utf8")).join("\n");
    expect(text).toContain('"/settings"');
    expect(text).toContain('"auth.version"');
  });
});

describe("a misconfiguration stops the start", () => {
  it.each([
    [{ AUTH_METRICS_ENABLED: "true", AUTH_METRICS_EXPORTER: "statsd" }, /AUTH_METRICS_EXPORTER: expected one of/],
    [
      { AUTH_METRICS_ENABLED: "true", OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "udp" },
      /OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: expected one of http\/protobuf, http\/json, grpc/,
    ],
    [
      { AUTH_METRICS_ENABLED: "true", AUTH_METRICS_EXPORTER: "prometheus", OTEL_EXPORTER_PROMETHEUS_PORT: "99999" },
      /OTEL_EXPORTER_PROMETHEUS_PORT/,
    ],
  ])("%o", async (env, message) => {
    await expect(startTestServer(env)).rejects.toThrow(message);
    expect(metrics.getMeterProvider().constructor.name).toBe("NoopMeterProvider");
  });
});

interface OtlpMetrics {
  readonly resourceMetrics: readonly {
    readonly scopeMetrics: readonly { readonly metrics: readonly { readonly name: string }[] }[];
  }[];
}
