import { defineConfig } from "vitest/config";

// Three projects: `unit` runs the domain and the HTTP layer on in-memory adapters in seconds; `integration` runs
// adapters, the composed server and the end-to-end suite against real PostgreSQL (TEST_DATABASE_URL, else a
// testcontainers PostgreSQL when a container runtime is available, else embedded PGlite); `faults` breaks the
// dependencies of the real binary and checks what clients and the database see (README, "Fault suite").
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "packages/domain/**/*.test.ts",
            "packages/http-hono/**/*.test.ts",
            "test/architecture/**/*.test.ts",
          ],
        },
      },
      {
        test: {
          name: "integration",
          include: [
            "packages/adapters-*/**/*.test.ts",
            "packages/import-gotrue/**/*.test.ts",
            "apps/server/**/*.test.ts",
            "test/e2e/**/*.test.ts",
          ],
          globalSetup: ["./packages/adapters-postgres/src/testing/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The fault suite (`pnpm test:faults`): each check starts its own PostgreSQL cluster, Redis, SMTP sink and
        // server processes, breaks one of them and measures what clients get. One file at a time, after the other
        // projects (a project with one worker runs last, alone), so that no other test competes for the CPU
        // while a check times things.
        test: {
          name: "faults",
          include: ["test/faults/**/*.test.ts"],
          maxWorkers: 1,
          testTimeout: 90_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
