import { propagation, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("test");

beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
afterAll(() => propagation.disable());

/** The one span a request made. */
async function spanOf(request: () => Response | Promise<Response>) {
  exporter.reset();
  const response = await request();
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return { span: spans[0]!, response };
}

describe("a span per request", () => {
  it("is named by the route, with its parameters, the method, the status and the request id", async () => {
    const { send } = createTestApp({ tracer, requestIdHeader: "x-request-id" });
    const id = "5e1c3f0a-1b2c-4d5e-8f90-123456789abc";
    const { span, response } = await spanOf(() =>
      send("GET", `/admin/users/${id}?token=secret-in-query`, undefined, { "x-request-id": "req-7" }),
    );
    expect(response.status).toBe(401);
    expect(span.name).toBe("GET /admin/users/{user_id}");
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toEqual({
      "http.route": "/admin/users/{user_id}",
      "http.method": "GET",
      "http.request.method": "GET",
      "http.response.status_code": 401,
      "http.status_code": 401,
      "request.id": "req-7",
      "http.route.params.user_id": id,
      "http.route.param.user_id": id,
    });
    expect(JSON.stringify(span.attributes)).not.toContain("secret-in-query");
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("names the route the same under /auth/v1, and a request no route took noroute", async () => {
    const { send } = createTestApp({ tracer });
    expect((await spanOf(() => send("GET", "/auth/v1/settings"))).span.name).toBe("GET /settings");
    const { span } = await spanOf(() => send("GET", "/no/such/thing"));
    expect(span.name).toBe("GET noroute");
    expect(span.attributes["http.response.status_code"]).toBe(404);
  });

  it("continues the caller's trace when it sends traceparent", async () => {
    const { send } = createTestApp({ tracer });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const { span } = await spanOf(() =>
      send("GET", "/health", undefined, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` }),
    );
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
  });

  it("marks a failure of ours as an error, and a refusal of the client's as none", async () => {
    const { send, ports } = createTestApp({ tracer });
    ports.stores.users.findByEmail = async () => {
      throw new Error("the database went away");
    };
    const failed = await spanOf(() =>
      send("POST", "/token?grant_type=password", { email: "a@example.com", password: "x" }),
    );
    expect(failed.response.status).toBe(500);
    expect(failed.span.status.code).toBe(SpanStatusCode.ERROR);
    const refused = await spanOf(() => send("POST", "/signup", "{not json"));
    expect(await json(refused.response)).toMatchObject({ error_code: "bad_json" });
    expect(refused.span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("is not made at all when tracing is off", async () => {
    const { app } = createTestApp();
    exporter.reset();
    await app.request("/health");
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
