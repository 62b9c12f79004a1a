import type { ConnectionEvents } from "@latchkey/adapters-postgres";
import type { Logger } from "pino";
import { createOutageLog } from "../logging/outage-log.ts";

/**
 * The log of the database connection that wakes the outbox worker (LISTEN): one warning when it is lost and one
 * line when it is back, however many reconnections fail in between. Meanwhile the worker's poll delivers.
 */
export function logListenConnection(log: Logger, databaseUrl: string): ConnectionEvents {
  const outage = createOutageLog(log, {
    fields: { database: databaseAddress(databaseUrl) },
    downMessage:
      "outbox: the database connection that wakes delivery is lost; queued mail and SMS wait for the next poll (1 s) until it is back",
    upMessage: (downFor) => `outbox: the database connection that wakes delivery is back after ${downFor}`,
  });
  return { lost: outage.down, restored: outage.up };
}

/** `host:port` of a PostgreSQL connection string, without its user or password. */
export function databaseAddress(url: string): string {
  try {
    const parsed = new URL(url);
    // A socket folder or several hosts may come as ?host=.
    const host = parsed.hostname || parsed.searchParams.get("host") || "localhost";
    return `${host}:${parsed.port || "5432"}`;
  } catch {
    return "(DATABASE_URL is not a URL)";
  }
}
