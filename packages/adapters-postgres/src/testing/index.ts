// Test support for packages that need a real database; never imported by production code.
export { createTestDatabase, dropTables, randomNamespace, testDatabaseUrl, type TestDatabase } from "./create-test-database.ts";
export { readOutboxEntry } from "./read-outbox.ts";
