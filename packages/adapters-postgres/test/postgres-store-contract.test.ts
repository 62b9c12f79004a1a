import { describeStoreContract } from "@latchkey/domain/testing";
import { createTestDatabase, readOutboxEntry, testDatabaseUrl } from "../src/testing/index.ts";

// On the test server (TEST_DATABASE_URL or the global setup's container); on PGlite when there is none.
describeStoreContract(testDatabaseUrl() ? "postgres" : "postgres (no server: pglite)", async () => {
  const database = await createTestDatabase();
  return { ...database.postgres, readOutbox: (id) => readOutboxEntry(database.postgres, id), close: database.close };
});
