import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../src/compose.ts";
import { startTestServer } from "../support/start-test-server.ts";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.ts";

// Metrics on: scraped from the Prometheus endpoint over HTTP, and pushed over OTLP/JSON to a collector in this
// process. OTEL_EXPORTER_OTLP_ENDPOINT, which the SDK reads itself, is set in process.env for this file only.

let receiver: OtlpReceiver;
const savedEnv: Record<string, string | undefined> = {};

function resetOpenTelemetry() {
  metrics.disable();
  trace.disable();
  context.disable();
  propagation.disable();
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  for (const [name, value] of Object.entries({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
});

afterEach(resetOpenTelemetry);

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await receiver.close();
});

/** A port free on 127.0.0.1 a moment ago. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The value of the first sample line of `name` whose labels include every one of `labels`. */
function sample(scrape: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of scrape.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return undefined;
}

describe("with METRICS_EXPORTER=prometheus", () => {
  it("serves the HTTP, runtime and process metrics at / on the configured host and port", async () => {
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
      // Only / answers, as GoTrue's README documents it.
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
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
