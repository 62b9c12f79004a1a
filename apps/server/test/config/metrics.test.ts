import { describe, expect, it } from "vitest";
import { load, problemsOf } from "./support.ts";

describe("metrics settings", () => {
  it("are off by default, pushed over OTLP when on, scraped from 127.0.0.1:9100 with Prometheus", () => {
    expect(load({}).metrics).toMatchObject({
      enabled: false,
      exporter: "opentelemetry",
      prometheusHost: "127.0.0.1",
      prometheusPort: 9100,
    });
    expect(load({ AUTH_METRICS_ENABLED: "true" }).metrics).toMatchObject({ enabled: true, exporter: "opentelemetry" });
    expect(load({ GOTRUE_METRICS_ENABLED: "1", GOTRUE_METRICS_EXPORTER: "prometheus" }).metrics).toMatchObject({
      enabled: true,
      exporter: "prometheus",
    });
  });

  it("reads the Prometheus address and the metrics protocol without a prefix, a prefixed name winning", () => {
    const config = load({
      AUTH_METRICS_ENABLED: "true",
      OTEL_EXPORTER_PROMETHEUS_HOST: "0.0.0.0",
      OTEL_EXPORTER_PROMETHEUS_PORT: "9464",
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
    });
    expect(config.metrics).toMatchObject({
      prometheusHost: "0.0.0.0",
      prometheusPort: 9464,
      metricsProtocol: "http/json",
    });
    expect(
      load({ AUTH_OTEL_EXPORTER_PROMETHEUS_PORT: "9200", OTEL_EXPORTER_PROMETHEUS_PORT: "9300" }).metrics
        .prometheusPort,
    ).toBe(9200);
  });

  it("refuses an exporter it does not have and a port that is none", () => {
    expect(problemsOf({ AUTH_METRICS_EXPORTER: "statsd" })).toEqual([
      'AUTH_METRICS_EXPORTER: expected one of opentelemetry, prometheus, got "statsd"',
    ]);
    expect(problemsOf({ AUTH_METRICS_ENABLED: "true", OTEL_EXPORTER_PROMETHEUS_PORT: "ninety" })).toHaveLength(1);
  });

  it("stops the start on a protocol it cannot push with, once metrics go over OTLP", () => {
    expect(
      problemsOf({
        AUTH_METRICS_ENABLED: "true",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml",
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "udp",
      }),
    ).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol metrics are exported with), got "http/xml"',
      'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol metrics are exported with), got "udp"',
    ]);
    expect(
      problemsOf({
        AUTH_TRACING_ENABLED: "true",
        AUTH_METRICS_ENABLED: "true",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml",
      }),
    ).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol traces and metrics are exported with), got "http/xml"',
    ]);
  });

  it("leaves the OTLP variables alone while metrics are off or scraped by Prometheus", () => {
    expect(load({ OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "udp" }).metrics.enabled).toBe(false);
    const scraped = load({
      AUTH_METRICS_ENABLED: "true",
      AUTH_METRICS_EXPORTER: "prometheus",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml",
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "udp",
    });
    expect(scraped.metrics.exporter).toBe("prometheus");
  });
});
