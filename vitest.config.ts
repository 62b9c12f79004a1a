import { defineConfig } from "vitest/config";

// Two projects: `unit` runs the domain and the HTTP layer on in-memory adapters in seconds; `integration` runs
// adapters, the composed server and the end-to-end suite against real PostgreSQL (TEST_DATABASE_URL, else a
// testcontainers PostgreSQL when a container runtime is available, else embedded PGlite).
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
          include: ["packages/adapters-*/**/*.test.ts", "apps/server/**/*.test.ts", "test/e2e/**/*.test.ts"],
          globalSetup: ["./packages/adapters-postgres/src/testing/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
