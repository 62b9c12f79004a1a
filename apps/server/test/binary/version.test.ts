import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freePort, run, serverDir, serverEnv, textOf, waitFor } from "../support/binary.ts";

// The version an operator reads from a running server is the one released: the server package's (CHANGELOG.md).
const packageVersion: string = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8"),
).version;

it("reports its package's version at /health and in the version gauges, scraped at / and /metrics", async () => {
  const cwd = serverDir();
  const [port, metricsPort] = [await freePort(), await freePort()];
  const logFile = join(cwd, "latchkey.log");
  run(
    [],
    serverEnv({
      PORT: String(port),
      AUTH_LOG_FILE: logFile,
      AUTH_METRICS_ENABLED: "true",
      AUTH_METRICS_EXPORTER: "prometheus",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
    }),
    cwd,
  );
  await waitFor(() => textOf(logFile).includes('"msg":"listening"'), "the server to listen");

  const health = await fetch(`http://127.0.0.1:${port}/health`);
  expect(health.status).toBe(200);
  expect(((await health.json()) as { version: string }).version).toBe(packageVersion);

  const [major, minor, patch] = packageVersion.split(/[.+-]/).map(Number);
  for (const path of ["/", "/metrics"]) {
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}${path}`);
    expect(scrape.status, path).toBe(200);
    const text = await scrape.text();
    expect(text).toMatch(new RegExp(`^global_auth_version_major(\\{[^}]*\\})? ${major}$`, "m"));
    expect(text).toMatch(new RegExp(`^global_auth_version_minor(\\{[^}]*\\})? ${minor}$`, "m"));
    expect(text).toMatch(new RegExp(`^global_auth_version_patch(\\{[^}]*\\})? ${patch}$`, "m"));
  }
});
