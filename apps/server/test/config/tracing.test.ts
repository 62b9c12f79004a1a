import { describe, expect, it } from "vitest";
import { load, problemsOf } from "./support.ts";

describe("tracing settings", () => {
  it("reads the switch and the exporter under AUTH_ and GOTRUE_ names", () => {
    expect(load({ AUTH_TRACING_ENABLED: "true" }).tracing).toMatchObject({ enabled: true, exporter: "opentelemetry" });
    expect(load({ GOTRUE_TRACING_ENABLED: "1", GOTRUE_TRACING_EXPORTER: "opentelemetry" }).tracing.enabled).toBe(true);
    expect(problemsOf({ AUTH_TRACING_EXPORTER: "zipkin" })).toEqual([
      'AUTH_TRACING_EXPORTER: expected one of opentelemetry, got "zipkin"',
    ]);
  });

  it("reads the OTLP protocols without a prefix, the traces one apart", () => {
    const config = load({
      AUTH_TRACING_ENABLED: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    });
    expect(config.tracing).toMatchObject({ protocol: "grpc", tracesProtocol: "http/json" });
    expect(
      load({ AUTH_OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).tracing.protocol,
    ).toBe("grpc");
  });

  it("stops the start on a protocol it cannot export with, once tracing is on", () => {
    expect(
      problemsOf({
        AUTH_TRACING_ENABLED: "true",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "udp",
      }),
    ).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol traces are exported with), got "http/xml"',
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol traces are exported with), got "udp"',
    ]);
  });

  it("leaves the OTLP variables to other programs while tracing is off", () => {
    const config = load({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "udp" });
    expect(config.tracing.enabled).toBe(false);
  });

  it("turns the SDK's diagnostics on with DEBUG=true, and never refuses another DEBUG", () => {
    expect(load({ DEBUG: "true" }).tracing.debug).toBe(true);
    expect(load({ AUTH_DEBUG: "1" }).tracing.debug).toBe(true);
    expect(load({ DEBUG: "express:*" }).tracing.debug).toBe(false);
    expect(load({ AUTH_TRACING_ENABLED: "true", DEBUG: "false" }).tracing.debug).toBe(false);
  });
});
