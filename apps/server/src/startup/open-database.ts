import { createPostgres, type Postgres } from "@latchkey/adapters-postgres";
import type { DatabaseConfig } from "../config/index.ts";

/** The database alone, for the subcommands that need nothing else (migrate, import): no statement time limits. */
export function openDatabase(db: DatabaseConfig["db"]): Promise<Postgres> {
  return createPostgres({
    url: db.url,
    embeddedDataDir: db.embeddedDataDir,
    maxPoolSize: db.maxPoolSize,
    namespace: db.namespace,
  });
}
