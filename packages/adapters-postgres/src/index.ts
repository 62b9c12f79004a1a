export { createPostgres, type Postgres, type PostgresOptions } from "./create-postgres.ts";
export type { ConnectionEvents, Database, PoolCounts } from "./database.ts";
export { migrations } from "./migrations/index.ts";
export { type MigrationConnection, type MigrationTarget, migrate } from "./migrations/migrate.ts";
export type { Migration } from "./migrations/migration.ts";
export { MAX_NAMESPACE_LENGTH, validateNamespace } from "./namespace.ts";
export { createSchema, type Schema, tablesOf } from "./schema/index.ts";
export { DatabaseError } from "./stores/database-error.ts";
export { outboxChannel } from "./stores/outbox-store.ts";
