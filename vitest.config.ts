import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// The projects (README, "Tests"): `unit`, the domain and the HTTP layer on in-memory adapters, in seconds;
// `integration`, each adapter against the real service and the composed server over HTTP (`isolated`, the few of
// its files that need a process to themselves); `e2e`, the official clients against the composed server; `binary`,
// the real binary as a process; `faults`, the binary with its dependencies broken under load. Those on a database
// use PostgreSQL (TEST_DATABASE_URL, else a testcontainers PostgreSQL when a container runtime answers) or, without
// one, the embedded PGlite; the global setup makes what the selected projects share.
//
// Test files run side by side, a file a core and the fault suite beside them. Where they leave no global state
// behind, the files of a worker share its module registry (isolate: false): a file then costs its tests, not
// another import of the server. Each server and test database has a namespace of its own, so files never meet.

// Files that check what a process has loaded or registered, which needs a module registry of their own.
const ISOLATED = ["apps/server/test/observability/tracing-off.test.ts"];
const BINARY = ["apps/server/test/binary/**/*.test.ts"];

const onServices = { testTimeout: 30_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    globalSetup: ["./test/support/global-setup.ts"],
    reporters: ["default", "./test/support/run-summary-reporter.ts"],
    sequence: { sequencer: (await import("./test/support/sequencer.ts")).default },
    // A file a core, and one more for the fault suite's lane, which mostly waits on what it broke.
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "packages/domain/**/*.test.ts",
            "packages/http-hono/**/*.test.ts",
            "test/architecture/**/*.test.ts",
          ],
          isolate: false,
        },
      },
      {
        test: {
          name: "integration",
          include: [
            "packages/adapters-*/**/*.test.ts",
            "packages/import-gotrue/**/*.test.ts",
            "apps/server/**/*.test.ts",
          ],
          exclude: [...ISOLATED, ...BINARY, "**/node_modules/**"],
          isolate: false,
          ...onServices,
        },
      },
      {
        test: { name: "isolated", include: ISOLATED, ...onServices },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // Every answer checked against the OpenAPI description (test/support/openapi-setup.ts).
          setupFiles: ["./test/support/openapi-setup.ts"],
          isolate: false,
          ...onServices,
        },
      },
      {
        test: { name: "binary", include: BINARY, ...onServices },
      },
      {
        // The fault suite (`pnpm test:faults`): each check starts its own PostgreSQL cluster, Redis, SMTP sink and
        // server processes, breaks one of them and measures what clients get. One file (fault-suite.test.ts), whose
        // checks run one at a time; the sequencer starts it first, as it is the longest lane.
        test: { name: "faults", include: ["test/faults/**/*.test.ts"], testTimeout: 90_000, hookTimeout: 60_000 },
      },
    ],
  },
});
