export { createPostgres, type Postgres, type PostgresOptions } from "./create-postgres.ts";
export { outboxChannel } from "./stores/outbox-store.ts";
export type { Database } from "./database.ts";
export { migrate, type MigrationConnection, type MigrationTarget } from "./migrations/migrate.ts";
export { migrations } from "./migrations/index.ts";
export type { Migration } from "./migrations/migration.ts";
export { MAX_NAMESPACE_LENGTH, validateNamespace } from "./namespace.ts";
export { createSchema, tablesOf, type Schema } from "./schema/index.ts";
export { DatabaseError } from "./stores/database-error.ts";
