import type { PoolCounts } from "@latchkey/adapters-postgres";
import type { FlowEvents, OutboxDepth, PasswordHasher } from "@latchkey/domain";
import type { Meter } from "@opentelemetry/api";
import type { MetricReader, PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";
import { OTLP_PROTOCOLS, type OtlpProtocol } from "../config/settings.ts";
import { exportsOf } from "./exports-of.ts";
import { flowEventCounters, observeOutbox } from "./flow-metrics.ts";
import { type ScrapeEndpoint, serveScrapes } from "./scrape-endpoint.ts";
import { timedHasher } from "./timed-hasher.ts";
import { diagLogger } from "./tracing.ts";

// Metrics (METRICS_ENABLED): a MeterProvider set up by hand, as tracing's provider is. Every module of the SDK is
// imported here, inside startMetrics, and only when metrics are on: with them off, none is even loaded. The HTTP
// layer's metrics middleware comes from @latchkey/http-hono/tracing, imported by compose.ts only then too.

export interface Metrics {
  /** Where the HTTP layer records its instruments. */
  readonly meter: Meter;
  /** What the auth flows report, counted. */
  readonly flowEvents: FlowEvents;
  /** The password hasher, its hashes and verifications timed and counted. */
  timed(hasher: PasswordHasher): PasswordHasher;
  /** Observes a connection pool's counts on each collection. */
  observePool(counts: () => PoolCounts): void;
  /** Observes the outbox's backlog on each collection. */
  observeOutbox(depth: () => Promise<readonly OutboxDepth[]>): void;
  /** Observes whether the SMTP server was found usable (undefined before it was first checked) on each collection. */
  observeSmtp(available: () => boolean | undefined): void;
  /** Exports what is still recorded (OTLP), stops the scrape endpoint (Prometheus); gives up after 5 s. Idempotent. */
  shutdown(): Promise<void>;
}

const SHUTDOWN_MS = 5_000;
/** The instrumentation scope of Latchkey's own instruments; GoTrue's is `gotrue`. */
const METER_NAME = "latchkey";
/** The SDK's default push interval, which OTEL_METRIC_EXPORT_INTERVAL changes. */
const DEFAULT_EXPORT_INTERVAL_MS = 60_000;
const DEFAULT_EXPORT_TIMEOUT_MS = 30_000;

/**
 * Sets a meter provider up as the global one, with the resource traces carry and one reader: a Prometheus scrape
 * endpoint (OTEL_EXPORTER_PROMETHEUS_HOST:PORT, at `/` as GoTrue serves it and at `/metrics`) or a periodic OTLP
 * push with the protocol the configuration names. Runtime metrics (event loop, heap, GC) come from the runtime-node
 * instrumentation; process CPU time and resident memory are read on each collection. Null when metrics are off.
 */
export async function startMetrics(
  config: Pick<Config, "metrics" | "tracing">,
  log: Logger,
  version: string,
): Promise<Metrics | null> {
  if (!config.metrics.enabled) return null;
  const [{ DiagLogLevel, diag, metrics }, resources, sdk, { registerInstrumentations }, runtime] = await Promise.all([
    exportsOf(import("@opentelemetry/api")),
    exportsOf(import("@opentelemetry/resources")),
    exportsOf(import("@opentelemetry/sdk-metrics")),
    exportsOf(import("@opentelemetry/instrumentation")),
    exportsOf(import("@opentelemetry/instrumentation-runtime-node")),
  ]);

  const debug = config.tracing.debug;
  const diagLog = log.child({ component: "opentelemetry" }, debug ? { level: "debug" } : {});
  diag.setLogger(diagLogger(diagLog), {
    logLevel: debug ? DiagLogLevel.DEBUG : DiagLogLevel.WARN,
    suppressOverrideMessage: true,
  });

  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "latchkey" }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ "auth.version": version }));

  const { reader, described, scrapes } = await createReader(config, sdk);

  const provider = new sdk.MeterProvider({ resource, readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  const unloadInstrumentations = registerInstrumentations({
    meterProvider: provider,
    instrumentations: [new runtime.RuntimeNodeInstrumentation()],
  });
  const meter = provider.getMeter(METER_NAME, version);
  observeProcess(meter);
  observeVersion(meter, version);
  log.info(described, "metrics on");

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), SHUTDOWN_MS);
    });
    try {
      // Shutting the provider down makes a last collection, which the OTLP reader pushes.
      const outcome = await Promise.race([provider.shutdown(), deadline]);
      if (outcome === "late") log.warn({ timeout_ms: SHUTDOWN_MS }, "metrics: the last collection was dropped");
    } catch (error) {
      log.warn({ err: error }, "metrics: the last collection could not be exported");
    } finally {
      clearTimeout(timer);
      await scrapes?.close();
      // After the last collection, which still reads the runtime's instruments.
      unloadInstrumentations();
      metrics.disable();
      diag.disable();
    }
  };
  return {
    meter,
    flowEvents: flowEventCounters(meter),
    timed: (hasher) => timedHasher(hasher, meter),
    observePool: (counts) => observePool(meter, counts),
    observeOutbox: (depth) => observeOutbox(meter, depth),
    observeSmtp: (available) => observeSmtp(meter, available),
    shutdown: () => (stopping ??= stop()),
  };
}

/** The one reader, what the start's log line says of it, and the scrape endpoint when it is Prometheus's. */
interface ConfiguredReader {
  readonly reader: MetricReader;
  readonly described: Record<string, unknown>;
  readonly scrapes?: ScrapeEndpoint;
}

/** A Prometheus scrape endpoint, or a periodic OTLP push, as the configuration names. */
async function createReader(
  config: Pick<Config, "metrics" | "tracing">,
  sdk: typeof import("@opentelemetry/sdk-metrics"),
): Promise<ConfiguredReader> {
  if (config.metrics.exporter === "prometheus") {
    const { PrometheusExporter } = await exportsOf(import("@opentelemetry/exporter-prometheus"));
    const { prometheusHost: host, prometheusPort: port } = config.metrics;
    // Its own server never starts: ours answers at both paths, and a port in use stops the start.
    const exporter = new PrometheusExporter({ host, port, preventServerStart: true });
    const scrapes = await serveScrapes(exporter, { host, port });
    return { reader: exporter, described: { exporter: "prometheus", host, port }, scrapes };
  }
  const protocol = metricsProtocol(config);
  const interval = positiveMs(process.env.OTEL_METRIC_EXPORT_INTERVAL) ?? DEFAULT_EXPORT_INTERVAL_MS;
  const timeout = positiveMs(process.env.OTEL_METRIC_EXPORT_TIMEOUT) ?? DEFAULT_EXPORT_TIMEOUT_MS;
  const reader = new sdk.PeriodicExportingMetricReader({
    exporter: await exporterFor(protocol),
    exportIntervalMillis: interval,
    // The SDK refuses a timeout longer than the interval.
    exportTimeoutMillis: Math.min(timeout, interval),
  });
  return { reader, described: { exporter: "opentelemetry", protocol, interval_ms: interval } };
}

/**
 * GoTrue's liveness and version gauges: `gotrue_running` (1 while the process runs) and
 * `global_auth_version_major`, `_minor` and `_patch`, from the build's version.
 */
function observeVersion(meter: Meter, version: string) {
  meter.createObservableGauge("gotrue_running").addCallback((result) => result.observe(1));
  const [major = 0, minor = 0, patch = 0] = version.split(/[.+-]/, 3).map((part) => Number.parseInt(part, 10) || 0);
  for (const [part, value] of [
    ["major", major],
    ["minor", minor],
    ["patch", patch],
  ] as const) {
    meter.createObservableGauge(`global_auth_version_${part}`).addCallback((result) => result.observe(value));
  }
}

/** process.cpu.time and process.memory.usage (RSS), as OpenTelemetry's semantic conventions name them. */
function observeProcess(meter: Meter) {
  meter
    .createObservableCounter("process.cpu.time", { unit: "s", description: "CPU time spent by this process." })
    .addCallback((result) => {
      const usage = process.cpuUsage();
      result.observe(usage.user / 1e6, { "cpu.mode": "user" });
      result.observe(usage.system / 1e6, { "cpu.mode": "system" });
    });
  meter
    .createObservableGauge("process.memory.usage", {
      unit: "By",
      description: "The resident set size of this process.",
    })
    .addCallback((result) => result.observe(process.memoryUsage.rss()));
}

/**
 * The database pool, with OpenTelemetry's names: `db.client.connection.count` by `db.client.connection.state`
 * (`used`, `idle`) and `db.client.connection.pending_requests`, read on each collection.
 */
function observePool(meter: Meter, counts: () => PoolCounts) {
  const pool = { "db.client.connection.pool.name": "latchkey" };
  const connections = meter.createObservableUpDownCounter("db.client.connection.count", {
    unit: "{connection}",
    description: "The database connections open, by state.",
  });
  const pending = meter.createObservableUpDownCounter("db.client.connection.pending_requests", {
    unit: "{request}",
    description: "Requests for a database connection waiting for one.",
  });
  meter.addBatchObservableCallback(
    (result) => {
      const now = counts();
      result.observe(connections, now.used, { ...pool, "db.client.connection.state": "used" });
      result.observe(connections, now.idle, { ...pool, "db.client.connection.state": "idle" });
      result.observe(pending, now.pending, pool);
    },
    [connections, pending],
  );
}

/**
 * `auth.smtp.available`: 1 when the latest check of the SMTP server (at start, then again when asked after 30 s)
 * found it accepting a connection and the credentials, 0 when not; nothing before the first check ends.
 */
function observeSmtp(meter: Meter, available: () => boolean | undefined) {
  meter
    .createObservableGauge("auth.smtp.available", {
      description: "Whether the SMTP server accepted a connection at its latest check: 1 if so, 0 if not.",
    })
    .addCallback((result) => {
      const found = available();
      if (found !== undefined) result.observe(found ? 1 : 0);
    });
}

/** OTEL_EXPORTER_OTLP_METRICS_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL; the start refused any other value. */
function metricsProtocol(config: Pick<Config, "metrics" | "tracing">): OtlpProtocol {
  const named = config.metrics.metricsProtocol ?? config.tracing.protocol;
  const protocol = OTLP_PROTOCOLS.find((known) => known === named);
  if (protocol === undefined) throw new Error(`unknown OTLP protocol ${JSON.stringify(named)}`);
  return protocol;
}

function positiveMs(value: string | undefined): number | undefined {
  const parsed = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

/** Each exporter reads its endpoint, headers, timeout and temporality from the OTEL_ variables itself. */
async function exporterFor(protocol: OtlpProtocol): Promise<PushMetricExporter> {
  switch (protocol) {
    case "http/protobuf":
      return new (await exportsOf(import("@opentelemetry/exporter-metrics-otlp-proto"))).OTLPMetricExporter();
    case "http/json":
      return new (await exportsOf(import("@opentelemetry/exporter-metrics-otlp-http"))).OTLPMetricExporter();
    case "grpc":
      return new (await exportsOf(import("@opentelemetry/exporter-metrics-otlp-grpc"))).OTLPMetricExporter();
  }
}
