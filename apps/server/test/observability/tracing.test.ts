import { request } from "node:http";
import { testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import { startSmtpSink } from "@latchkey/adapters-smtp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { version } from "../../src/compose.ts";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";
import { resetOpenTelemetry, serviceRoleToken, setProcessEnv } from "./observability-support.ts";
import { type ExportedSpan, type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from "./otlp-receiver.ts";

// Tracing on, against a collector in this process: the OTEL_ variables the SDK reads itself are set in
// process.env for this file and restored after it.

const databaseUrl = testDatabaseUrl();
const SERVICE_NAME = "latchkey-under-test";
const email = "traced@example.com";
const password = "traced-password-never-exported";

let receiver: OtlpReceiver;
let restoreEnv: () => void = () => {};

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const env: Record<string, string> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_HEADERS: "x-test-key=abc123",
    OTEL_SERVICE_NAME: SERVICE_NAME,
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test,team=identity",
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

/** The server span named `name` (`GET /admin/users/{user_id}`) once exported. */
async function serverSpan(name: string, matches: (span: ExportedSpan) => boolean = () => true) {
  const spans = await receiver.waitForSpans((all) =>
    all.some((span) => span.name === name && span.kind === SPAN_KIND.server && matches(span)),
  );
  const span = spans.find((candidate) => candidate.name === name && matches(candidate));
  if (!span) throw new Error(`no span ${name}`);
  return span;
}

describe("tracing over OTLP/JSON", () => {
  let server: TestServer;
  let userId: string;

  beforeAll(async () => {
    server = await startTestServer({
      AUTH_TRACING_ENABLED: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      AUTH_SECURITY_CAPTCHA_ENABLED: "true",
      AUTH_SECURITY_CAPTCHA_SECRET: "captcha-secret",
      AUTH_SECURITY_CAPTCHA_VERIFY_URL: `${receiver.url}/siteverify`,
    });
    const signup = await server.fetch("/signup", {
      method: "POST",
      json: { email, password, gotrue_meta_security: { captcha_token: "captcha-token" } },
    });
    expect(signup.status).toBe(200);
    userId = ((await signup.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await server.close();
    resetOpenTelemetry();
  });

  it("makes a request a SERVER span, and each of its database statements a CLIENT span beneath it", async () => {
    const response = await server.fetch(`/admin/users/${userId}`, {
      headers: { authorization: `Bearer ${await serviceRoleToken()}` },
    });
    expect(response.status).toBe(200);
    const span = await serverSpan("GET /admin/users/{user_id}");
    expect(span).toMatchObject({ scope: "latchkey", statusCode: 0 });
    expect(span.attributes).toMatchObject({
      "http.route": "/admin/users/{user_id}",
      "http.route.params.user_id": userId,
      "http.request.method": "GET",
      "http.response.status_code": 200,
    });
    if (!databaseUrl) return; // PGlite's statements are not traced
    const statements = (await receiver.waitForSpans((all) => all.some((s) => s.parentSpanId === span.spanId))).filter(
      (child) => child.parentSpanId === span.spanId,
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement).toMatchObject({ traceId: span.traceId, kind: SPAN_KIND.client, scope: "latchkey" });
      expect(statement.attributes).toMatchObject({
        "db.system.name": "postgresql",
        "db.namespace": new URL(databaseUrl).pathname.slice(1),
        "db.operation.name": statement.name,
      });
      // The statement as sent, its parameters unfilled: the user's id is a parameter.
      expect(statement.attributes["db.query.text"]).toMatch(/\$1/);
      expect(statement.attributes["db.query.text"]).not.toContain(userId);
    }
    expect(statements.map((statement) => statement.name)).toContain("SELECT");
  });

  it("makes an outgoing call (the captcha check) a CLIENT span of the request, carrying its trace", async () => {
    const signup = await serverSpan("POST /signup");
    const calls = receiver
      .spans()
      .filter((span) => span.parentSpanId === signup.spanId && span.attributes["url.full"] !== undefined);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ kind: SPAN_KIND.client, traceId: signup.traceId });
    expect(calls[0]?.attributes).toMatchObject({
      "url.full": `${receiver.url}/siteverify`,
      "http.request.method": "POST",
      "http.response.status_code": 200,
    });
    const siteverify = receiver.received.find((received) => received.path === "/siteverify");
    expect(siteverify?.headers["traceparent"]).toContain(signup.traceId);
  });

  it("makes each mail sent a CLIENT span of its kind, with no address or content", async () => {
    const spans = await receiver.waitForSpans((all) => all.some((span) => span.name === "smtp send"));
    const mail = spans.find((span) => span.name === "smtp send");
    expect(mail).toMatchObject({ kind: SPAN_KIND.client, statusCode: 0 });
    expect(mail?.attributes).toEqual({
      "auth.email.kind": "confirmation",
      "server.address": "127.0.0.1",
      "server.port": server.mail.port,
    });
    // Nowhere in what was exported: not the address, not the password.
    for (const exported of receiver.exports()) {
      expect(exported.body.toString("utf8")).not.toContain(email);
      expect(exported.body.toString("utf8")).not.toContain(password);
    }
  });

  it("describes the service by OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and auth.version", async () => {
    const span = await serverSpan("POST /signup");
    expect(span.resource).toMatchObject({
      "service.name": SERVICE_NAME,
      "deployment.environment.name": "test",
      team: "identity",
      "auth.version": version,
      "telemetry.sdk.language": "nodejs",
    });
  });

  it("continues the trace of an incoming traceparent", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    const status = await new Promise<number>((resolve, reject) => {
      // node:http, which nothing instruments here: the header is the test's alone.
      const url = new URL(`${server.url}/settings`);
      request(url, { headers: { traceparent: `00-${traceId}-${parentId}-01` } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(status).toBe(200);
    const span = await serverSpan("GET /settings", (candidate) => candidate.traceId === traceId);
    expect(span.parentSpanId).toBe(parentId);
  });

  it("exports with OTEL_EXPORTER_OTLP_HEADERS, in JSON", () => {
    expect(receiver.exports().length).toBeGreaterThan(0);
    for (const exported of receiver.exports()) {
      expect(exported.headers["content-type"]).toBe("application/json");
      expect(exported.headers["x-test-key"]).toBe("abc123");
    }
  });
});

describe("tracing over OTLP/protobuf, the default", () => {
  it("exports the spans still buffered when the server closes", async () => {
    // Nothing goes out on its own within the test: what arrives was flushed by close().
    process.env["OTEL_BSP_SCHEDULE_DELAY"] = "60000";
    const server = await startTestServer({ AUTH_TRACING_ENABLED: "true" });
    try {
      const response = await server.fetch("/admin/users/7b0b7c0e-3f7e-4c7e-9a52-0c5a1b8a9d11", {
        headers: { authorization: `Bearer ${await serviceRoleToken()}` },
      });
      expect(response.status).toBe(404);
    } finally {
      await server.close();
      process.env["OTEL_BSP_SCHEDULE_DELAY"] = "50";
      resetOpenTelemetry();
    }
    const protobuf = receiver.exports().filter((exported) => exported.headers["content-type"] !== "application/json");
    expect(protobuf.length).toBeGreaterThan(0);
    for (const exported of protobuf) {
      expect(exported.headers["content-type"]).toBe("application/x-protobuf");
      expect(exported.headers["x-test-key"]).toBe("abc123");
    }
    // Protobuf keeps strings as they are.
    const body = Buffer.concat(protobuf.map((exported) => exported.body)).toString("latin1");
    for (const text of ["auth.version", version, SERVICE_NAME, "identity", "/admin/users/{user_id}", "latchkey"]) {
      expect(body).toContain(text);
    }
  });
});

describe("tracing's configuration", () => {
  it("refuses to start on an OTLP protocol it cannot export with", async () => {
    const mail = await startSmtpSink();
    try {
      await expect(
        startTestServer({ AUTH_TRACING_ENABLED: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml" }, {}, { mail }),
      ).rejects.toThrow(
        'OTEL_EXPORTER_OTLP_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol traces are exported with), got "http/xml"',
      );
    } finally {
      await mail.close();
    }
  });

  it("exports over gRPC when asked, and with DEBUG=true writes the SDK's diagnostics whatever LOG_LEVEL", async () => {
    const server = await startTestServer({
      AUTH_TRACING_ENABLED: "true",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc",
      DEBUG: "true",
    });
    try {
      expect((await server.fetch("/settings")).status).toBe(200);
    } finally {
      // Nothing listens for gRPC: the last export fails, and close says so rather than waiting.
      await server.close();
      resetOpenTelemetry();
    }
    const lines = server.logLines();
    expect(lines).toContainEqual(
      expect.objectContaining({ protocol: "grpc", msg: "tracing on: spans are exported over OTLP" }),
    );
    expect(lines.some((line) => line["component"] === "opentelemetry" && line["level"] === 20)).toBe(true);
  });
});
