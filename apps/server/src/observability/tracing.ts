import type { DiagLogger, Tracer } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "pino";
import type { Config } from "../config/index.ts";
import { OTLP_PROTOCOLS, type OtlpProtocol } from "../config/settings.ts";
import { exportsOf } from "./exports-of.ts";

// Tracing (TRACING_ENABLED): the OpenTelemetry SDK, set up by hand rather than through @opentelemetry/sdk-node,
// which would configure itself from every OTEL_ variable and load exporters we never use. Every module of the SDK
// is imported here, inside startTracing, and only when tracing is on: with it off, none is even loaded (the bundle
// keeps them in chunks of their own). So is the API (@opentelemetry/api), and the HTTP layer's tracing middleware
// comes from an entry point of its own (@latchkey/http-hono/tracing), imported by compose.ts only then too.

export interface Tracing {
  /** Where the HTTP layer, the database and the mailer start their spans. */
  readonly tracer: Tracer;
  /** Exports the spans still buffered, then stops; gives up after 5 s. Idempotent. */
  shutdown(): Promise<void>;
}

/** As GoTrue: what is still buffered at shutdown gets this long to be exported. */
const SHUTDOWN_MS = 5_000;
/** The instrumentation scope of Latchkey's own spans. */
const TRACER_NAME = "latchkey";

/**
 * Registers a tracer provider exporting over OTLP, with the protocol the configuration names and whatever the
 * OTEL_ variables the SDK reads itself say (endpoint, headers, service name, resource attributes, batching).
 * Outgoing fetch calls (SMS, OAuth, captcha, mail templates) become spans through the undici instrumentation.
 * Null when tracing is off.
 */
export async function startTracing(
  config: Pick<Config, "tracing">,
  log: Logger,
  version: string,
): Promise<Tracing | null> {
  if (!config.tracing.enabled) return null;
  const protocol = tracesProtocol(config.tracing);
  const [
    { context, DiagLogLevel, diag, propagation, trace },
    resources,
    { BatchSpanProcessor },
    { NodeTracerProvider },
    { registerInstrumentations },
    undici,
  ] = await Promise.all([
    exportsOf(import("@opentelemetry/api")),
    exportsOf(import("@opentelemetry/resources")),
    exportsOf(import("@opentelemetry/sdk-trace-base")),
    exportsOf(import("@opentelemetry/sdk-trace-node")),
    exportsOf(import("@opentelemetry/instrumentation")),
    exportsOf(import("@opentelemetry/instrumentation-undici")),
  ]);

  // The SDK's own warnings and errors (a failed export, say) always reach the log; DEBUG=true adds its
  // diagnostics, written whatever LOG_LEVEL says.
  const diagLog = log.child({ component: "opentelemetry" }, config.tracing.debug ? { level: "debug" } : {});
  diag.setLogger(diagLogger(diagLog), {
    logLevel: config.tracing.debug ? DiagLogLevel.DEBUG : DiagLogLevel.WARN,
    suppressOverrideMessage: true,
  });

  // The env detector reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, which win over our service name.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "latchkey" }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ "auth.version": version }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(await exporterFor(protocol))],
  });
  // AsyncLocalStorage as the context manager; W3C traceparent, tracestate and baggage as the propagators.
  provider.register();
  const unloadInstrumentations = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new undici.UndiciInstrumentation()],
  });
  log.info({ protocol }, "tracing on: spans are exported over OTLP");

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    unloadInstrumentations();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), SHUTDOWN_MS);
    });
    try {
      const flushed = provider.forceFlush().then(() => provider.shutdown());
      const outcome = await Promise.race([flushed, deadline]);
      if (outcome === "late") log.warn({ timeout_ms: SHUTDOWN_MS }, "tracing: spans still buffered were dropped");
    } catch (error) {
      log.warn({ err: error }, "tracing: the last spans could not be exported");
    } finally {
      clearTimeout(timer);
      // Hand the globals back, so that a later provider (a test's, another server's) can register.
      const registered = trace.getTracerProvider() as { getDelegate?: () => unknown };
      if (registered.getDelegate?.() === provider) {
        trace.disable();
        context.disable();
        propagation.disable();
      }
      diag.disable();
    }
  };
  return {
    tracer: provider.getTracer(TRACER_NAME, version),
    shutdown: () => (stopping ??= stop()),
  };
}

/** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL; the start refused any other value. */
function tracesProtocol(tracing: Config["tracing"]): OtlpProtocol {
  const named = tracing.tracesProtocol ?? tracing.protocol;
  const protocol = OTLP_PROTOCOLS.find((known) => known === named);
  if (protocol === undefined) throw new Error(`unknown OTLP protocol ${JSON.stringify(named)}`);
  return protocol;
}

/** Each exporter reads its endpoint, headers, timeout and compression from the OTEL_ variables itself. */
async function exporterFor(protocol: OtlpProtocol): Promise<SpanExporter> {
  switch (protocol) {
    case "http/protobuf":
      return new (await exportsOf(import("@opentelemetry/exporter-trace-otlp-proto"))).OTLPTraceExporter();
    case "http/json":
      return new (await exportsOf(import("@opentelemetry/exporter-trace-otlp-http"))).OTLPTraceExporter();
    case "grpc":
      return new (await exportsOf(import("@opentelemetry/exporter-trace-otlp-grpc"))).OTLPTraceExporter();
  }
}

/** The SDK's diagnostics as log lines: errors and warnings as such, the rest at debug. */
export function diagLogger(log: Logger): DiagLogger {
  const write =
    (level: "error" | "warn" | "debug") =>
    (message: string, ...args: unknown[]) => {
      const [first] = args;
      if (args.length === 1 && first instanceof Error) log[level]({ err: first }, message);
      else if (args.length > 0) log[level]({ details: args }, message);
      else log[level](message);
    };
  return {
    error: write("error"),
    warn: write("warn"),
    info: write("debug"),
    debug: write("debug"),
    verbose: write("debug"),
  };
}
