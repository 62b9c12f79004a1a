import type { TestProject } from "vitest/node";
import { TEST_DATABASE_URL_KEY } from "./provided-context.ts";

// Long enough for a local Docker or Podman to answer, short enough not to stall a machine that has none.
const RUNTIME_DETECTION_TIMEOUT_MS = 5_000;
const POSTGRES_IMAGE = "postgres:15-alpine";

/**
 * vitest global setup of the integration project. With TEST_DATABASE_URL set, or without a container runtime,
 * does nothing (test databases then use that URL, or PGlite). Otherwise starts a PostgreSQL container, provides
 * its URL to the test files and stops it when the run ends.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env["TEST_DATABASE_URL"]) return undefined;
  if (!(await containerRuntimeAvailable())) return undefined;
  const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
  const container = await new PostgreSqlContainer(POSTGRES_IMAGE).start();
  project.provide(TEST_DATABASE_URL_KEY, container.getConnectionUri());
  return async () => {
    await container.stop();
  };
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
