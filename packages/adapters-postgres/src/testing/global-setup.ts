import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { writeEmbeddedTemplate } from "./embedded-test-database.ts";
import { EMBEDDED_TEMPLATE_KEY, TEST_DATABASE_URL_KEY } from "./provided-context.ts";

// Long enough for a local Docker or Podman to answer, short enough not to stall a machine that has none.
const RUNTIME_DETECTION_TIMEOUT_MS = 5_000;
const POSTGRES_IMAGE = "postgres:15-alpine";

/**
 * What tests on a database need from a global setup: the files of a fresh PGlite cluster for in-memory databases
 * to start from, and, without TEST_DATABASE_URL, a testcontainers PostgreSQL when a container runtime answers
 * (without one, tests use the embedded database). Provides both to the test files; returns the teardown.
 */
export async function setUpTestDatabases(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-embedded-template-"));
  const [container, template] = await Promise.all([startContainer(), writeEmbeddedTemplate(dir)]);
  project.provide(EMBEDDED_TEMPLATE_KEY, template);
  if (container) project.provide(TEST_DATABASE_URL_KEY, container.getConnectionUri());
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    await container?.stop();
  };
}

async function startContainer() {
  if (process.env["TEST_DATABASE_URL"]) return undefined;
  if (!(await containerRuntimeAvailable())) return undefined;
  const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
  return new PostgreSqlContainer(POSTGRES_IMAGE).start();
}

// testcontainers' own detection (env, ~/.testcontainers.properties, sockets), imported only when needed; its
// failure is expected on machines without a runtime and is not worth a word.
async function containerRuntimeAvailable(): Promise<boolean> {
  const { getContainerRuntimeClient } = await import("testcontainers");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), RUNTIME_DETECTION_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([getContainerRuntimeClient().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
