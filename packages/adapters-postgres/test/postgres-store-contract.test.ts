import { describeIfAvailable, describeStoreContract } from "@latchkey/domain/testing";
import { createTestDatabase, missingPostgresServer, readOutboxEntry } from "../src/testing/index.ts";

// On the test server (TEST_DATABASE_URL or the global setup's container); pglite-store-contract covers PGlite.
describeIfAvailable(missingPostgresServer(), "postgres", () => {
  describeStoreContract("postgres", async () => {
    const database = await createTestDatabase();
    return { ...database.postgres, readOutbox: (id) => readOutboxEntry(database.postgres, id), close: database.close };
  });
});
