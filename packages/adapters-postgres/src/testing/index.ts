// Test support for packages that need a real database; never imported by production code.

export { type BlockableRole, createBlockableRole } from "./blockable-role.ts";
export {
  createTestDatabase,
  dropTables,
  missingPostgresServer,
  randomNamespace,
  type TestDatabase,
  testDatabaseUrl,
} from "./create-test-database.ts";
export { connectDirectly, type DirectConnection } from "./direct-connection.ts";
export {
  openEmbeddedTestDatabase,
  prefillDataDir,
  sharedEmbeddedTestDatabase,
} from "./embedded-test-database.ts";
export { setUpTestDatabases } from "./global-setup.ts";
export { readOutboxEntry } from "./read-outbox.ts";
