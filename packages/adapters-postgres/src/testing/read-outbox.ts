import type { OutboxEntry } from "@latchkey/domain";
import { eq, getTableColumns } from "drizzle-orm";
import type { Postgres } from "../create-postgres.ts";

/** What the outbox keeps of a message, sealed content included: for tests to look at, no port's business. */
export async function readOutboxEntry(postgres: Postgres, id: string): Promise<OutboxEntry | null> {
  const { outbox } = postgres.schema;
  const { leaseUntil: _lease, claimId: _claim, ...columns } = getTableColumns(outbox);
  const [row] = await postgres.db.select(columns).from(outbox).where(eq(outbox.id, id)).limit(1);
  return row ?? null;
}
