import type { FlowStateStore } from "@latchkey/domain";
import { eq } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromFlowStateRow, toFlowStateRow } from "../rows/flow-state-row.ts";
import type { Schema } from "../schema/create-schema.ts";

/** PKCE flows waiting for their code to be exchanged, each handed out once. */
export function createFlowStateStore(db: Database, schema: Schema): FlowStateStore {
  const { flowStates } = schema;
  return {
    async insert(flow) {
      await db.insert(flowStates).values(toFlowStateRow(flow));
    },

    async consume(authCodeHash) {
      // One statement that removes and returns: of two concurrent consumers, the second waits for the first's row
      // lock, then finds the row gone (READ COMMITTED re-checks it) and gets nothing. A SELECT then DELETE would
      // let both read the flow before either deleted it.
      const [row] = await db.delete(flowStates).where(eq(flowStates.authCodeHash, authCodeHash)).returning();
      return row ? fromFlowStateRow(row) : null;
    },
  };
}
