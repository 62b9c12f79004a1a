// Test support for packages that need a real database; never imported by production code.
export {
  createTestDatabase,
  dropTables,
  randomNamespace,
  type TestDatabase,
  testDatabaseUrl,
} from "./create-test-database.ts";
export { readOutboxEntry } from "./read-outbox.ts";
