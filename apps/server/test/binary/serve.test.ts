import { request } from "node:http";
import { join } from "node:path";
import { parseKeyRing } from "@latchkey/adapters-crypto";
import { migrations } from "@latchkey/adapters-postgres";
import { missingPostgresServer } from "@latchkey/adapters-postgres/testing";
import { describe, expect, it } from "vitest";
import { startOtlpReceiver } from "../observability/otlp-receiver.ts";
import { freePort, onCleanup, run, serverDir, serverEnv, tempDir, textOf, waitFor } from "../support/binary.ts";

describe("the latchkey binary", () => {
  it("says at start what it ignores, and that phone codes fail without an SMS provider", async (context) => {
    // The production profile's warning: the development profile writes codes to its log instead.
    const missing = missingPostgresServer();
    context.skip(missing !== undefined, missing);
    const cwd = serverDir();
    const logFile = join(cwd, "latchkey.log");
    const port = await freePort();
    const env = serverEnv({
      PORT: String(port),
      AUTH_LOG_FILE: logFile,
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      // Supabase's own compose files set it; alone it asks for nothing.
      GOTRUE_OPERATOR_TOKEN: "super-secret-operator-token",
    });
    run([], env, cwd);
    const logText = () => textOf(logFile);
    await waitFor(() => logText().includes('"msg":"listening"'), "the server to listen");
    expect(logText()).toContain("EXTERNAL_PHONE_ENABLED without SMS_PROVIDER: requests that text a code fail");
    expect(logText()).toContain("GOTRUE_OPERATOR_TOKEN is ignored: it belongs to multi-instance mode");
    expect(logText()).not.toContain("super-secret-operator-token");
  });

  it("migrates with the migrate subcommand, and does nothing the second time", async () => {
    const cwd = serverDir();
    const env = serverEnv();
    const first = run(["migrate"], env, cwd);
    expect(await first.exited).toBe(0);
    expect(first.output().stdout).toContain(
      `"applied":${JSON.stringify(migrations.map((migration) => migration.version))}`,
    );
    const second = run(["migrate"], env, cwd);
    expect(await second.exited).toBe(0);
    expect(second.output().stdout).toContain("database schema is up to date");
  });

  it("refuses to start on a bad configuration, listing every problem in one message", async () => {
    const result = run(
      [],
      {
        PATH: process.env["PATH"] ?? "",
        DATABASE_URL: "postgres://db.invalid/auth",
        AUTH_JWT_EXP: "soon",
        AUTH_PORT: "http",
      },
      tempDir(),
    );
    expect(await result.exited).toBe(1);
    const { stderr } = result.output();
    for (const problem of [
      "AUTH_SITE_URL",
      "AUTH_API_EXTERNAL_URL",
      "AUTH_JWT_SECRET",
      "AUTH_JWT_EXP",
      "AUTH_PORT",
      "AUTH_SMTP_HOST",
    ]) {
      expect(stderr).toContain(problem);
    }
    expect(stderr).not.toContain("db.invalid");
  });

  it("prints a new key ring with the keys subcommand, and nothing else on stdout", async () => {
    const result = run(["keys", "generate", "--alg", "ES256"], { PATH: process.env["PATH"] ?? "" }, tempDir());
    expect(await result.exited).toBe(0);
    const { stdout } = result.output();
    expect(parseKeyRing(stdout.trim()).signer).toMatchObject({ alg: "ES256", signs: true });
  });

  it("refuses an unknown subcommand", async () => {
    const result = run(["serve-forever"], serverEnv(), tempDir());
    expect(await result.exited).toBe(2);
    expect(result.output().stderr).toBe("latchkey: unknown command serve-forever; see latchkey --help\n");
  });

  it("writes its log to LOG_FILE, and on SIGTERM finishes the request in flight before it stops", async () => {
    const cwd = serverDir();
    const port = await freePort();
    const logFile = join(cwd, "logs", "latchkey.log");
    const server = run(
      [],
      serverEnv({ PORT: String(port), AUTH_LOG_FILE: logFile, AUTH_MAILER_AUTOCONFIRM: "true" }),
      cwd,
    );
    const logText = () => textOf(logFile);
    await waitFor(() => logText().includes('"msg":"listening"'), "the server to listen");

    // A request whose body is still arriving when SIGTERM comes.
    const body = JSON.stringify({ email: "drain@example.com", password: "secret-password" });
    const response = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/signup",
          headers: { "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill("SIGTERM");
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 300);
    });
    expect(await response).toBe(200);
    expect(await server.exited).toBe(0);
    await waitFor(() => logText().includes('"msg":"stopped"'), "the stop line");
    expect(logText()).toContain("shutting down");
    expect(server.output().stdout).toBe("");
  });

  it("with TRACING_ENABLED, on SIGTERM exports the spans still buffered before it stops", async () => {
    const receiver = await startOtlpReceiver();
    onCleanup(() => receiver.close());
    const cwd = serverDir();
    const port = await freePort();
    const logFile = join(cwd, "latchkey.log");
    const server = run(
      [],
      serverEnv({
        PORT: String(port),
        AUTH_LOG_FILE: logFile,
        AUTH_TRACING_ENABLED: "true",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // Nothing is exported on its own while the test runs: only the flush at shutdown.
        OTEL_BSP_SCHEDULE_DELAY: "600000",
      }),
      cwd,
    );
    await waitFor(() => textOf(logFile).includes('"msg":"listening"'), "the server to listen");
    expect((await fetch(`http://127.0.0.1:${port}/settings`)).status).toBe(200);
    expect(receiver.exports()).toEqual([]);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(receiver.spans().map((span) => span.name)).toContain("GET /settings");
  });

  it("refuses to start with TRACING_ENABLED and an OTLP protocol it cannot export with", async () => {
    const result = run(
      [],
      serverEnv({ AUTH_TRACING_ENABLED: "true", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml" }),
      tempDir(),
    );
    expect(await result.exited).toBe(1);
    expect(result.output().stderr).toContain(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: expected one of http/protobuf, http/json, grpc (the OTLP protocol traces are exported with), got "http/xml"',
    );
  });
});
