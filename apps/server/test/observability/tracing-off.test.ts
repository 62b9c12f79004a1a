import { createRequire } from "node:module";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { startMetrics } from "../../src/observability/metrics.ts";
import { startTracing } from "../../src/observability/tracing.ts";
import { production } from "../config/support.ts";
import { startTestServer } from "../support/start-test-server.ts";

// Its own file, so its own module registry: nothing another test loaded can be mistaken for the server's doing.

/** The provider the API hands spans to: a no-op one until an SDK registers. */
function registeredProvider(): string {
  const proxy = trace.getTracerProvider() as unknown as { getDelegate(): object };
  return proxy.getDelegate().constructor.name;
}

/** The SDK's CommonJS modules loaded in this process so far (the API aside: this test imports it itself). */
function sdkModulesLoaded(): string[] {
  return Object.keys(createRequire(import.meta.url).cache).filter(
    (path) => /[/\\]@opentelemetry[/\\]/.test(path) && !/[/\\]@opentelemetry[/\\]api[/\\]/.test(path),
  );
}

afterAll(() => {
  metrics.disable();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("with TRACING_ENABLED false (the default)", () => {
  it("starts no tracing", async () => {
    const log = { child: () => log, info: () => undefined } as never;
    expect(await startTracing(production(), log, "0.0.0")).toBeNull();
  });

  it("with METRICS_ENABLED false (the default) too, starts no metrics", async () => {
    const log = { child: () => log, info: () => undefined } as never;
    expect(await startMetrics(production(), log, "0.0.0")).toBeNull();
  });

  it("serves without loading the SDK or registering a tracer", async () => {
    const server = await startTestServer();
    try {
      expect((await server.fetch("/settings")).status).toBe(200);
      expect(sdkModulesLoaded()).toEqual([]);
      expect(registeredProvider()).toBe("NoopTracerProvider");
      expect(metrics.getMeterProvider().constructor.name).toBe("NoopMeterProvider");
      const probe = trace.getTracer("probe").startSpan("probe");
      expect(probe.isRecording()).toBe(false);
      probe.end();
    } finally {
      await server.close();
    }
  });

  it("is a check that would see the SDK: with tracing on it is loaded, and close unregisters it", async () => {
    // No request, so no span to export to the default endpoint, where nothing listens.
    const server = await startTestServer({ AUTH_TRACING_ENABLED: "true" });
    try {
      expect(sdkModulesLoaded()).toEqual(
        expect.arrayContaining([expect.stringMatching(/sdk-trace-node/), expect.stringMatching(/resources/)]),
      );
      expect(registeredProvider()).toBe("NodeTracerProvider");
    } finally {
      await server.close();
    }
    expect(registeredProvider()).toBe("NoopTracerProvider");
  });

  it("sees the metrics SDK too: with metrics on it is loaded, and close unregisters the meter provider", async () => {
    // Scraped, on a port the system picks, so that nothing is pushed anywhere.
    const server = await startTestServer({
      AUTH_METRICS_ENABLED: "true",
      AUTH_METRICS_EXPORTER: "prometheus",
      OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
      OTEL_EXPORTER_PROMETHEUS_PORT: "0",
    });
    try {
      expect(sdkModulesLoaded()).toEqual(expect.arrayContaining([expect.stringMatching(/sdk-metrics/)]));
      expect(metrics.getMeterProvider().constructor.name).toBe("MeterProvider");
    } finally {
      await server.close();
    }
    expect(metrics.getMeterProvider().constructor.name).toBe("NoopMeterProvider");
  });
});
