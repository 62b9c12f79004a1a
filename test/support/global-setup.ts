import { setUpTestDatabases } from "@latchkey/adapters-postgres/testing";
import type { TestProject } from "vitest/node";

// What the run's test files share, made once, and only for the projects this run selected: the test databases
// (vitest.config.ts) and the built server that binary, end-to-end and fault tests start.
const ON_DATABASES = ["integration", "isolated", "e2e", "binary"];
const RUN_THE_BINARY = ["binary", "e2e", "faults"];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const selected = new Set(project.vitest.projects.map((each) => each.name));
  const wanted = (names: string[]) => names.some((name) => selected.has(name));
  // The server's test support loads the whole server (a second): only for the runs that build it.
  const buildServer = async () => {
    const { provideServerBundle } = await import("@latchkey/server/testing");
    return provideServerBundle((key, entry) => project.provide(key, entry));
  };
  const [databases, bundle] = await Promise.all([
    wanted(ON_DATABASES) ? setUpTestDatabases(project) : undefined,
    wanted(RUN_THE_BINARY) ? buildServer() : undefined,
  ]);
  return async () => {
    bundle?.();
    await databases?.();
  };
}
