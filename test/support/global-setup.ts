import { setUpTestDatabases } from "@latchkey/adapters-postgres/testing";
import type { TestProject } from "vitest/node";
import { provideServerBundle } from "../../apps/server/test/support/server-entry.ts";

// What the run's test files share, made once, and only for the projects this run selected: the test databases
// (vitest.config.ts) and the built server that binary, end-to-end and fault tests start.
const ON_DATABASES = ["integration", "isolated", "e2e", "binary"];
const RUN_THE_BINARY = ["binary", "e2e", "faults"];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const selected = new Set(project.vitest.projects.map((each) => each.name));
  const wanted = (names: string[]) => names.some((name) => selected.has(name));
  const [databases, bundle] = await Promise.all([
    wanted(ON_DATABASES) ? setUpTestDatabases(project) : undefined,
    wanted(RUN_THE_BINARY) ? provideServerBundle((key, entry) => project.provide(key, entry)) : undefined,
  ]);
  return async () => {
    bundle?.();
    await databases?.();
  };
}
