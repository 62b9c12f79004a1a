import type { OAuthFlowStore } from "@latchkey/domain";
import { eq, lt } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/** How long an abandoned flow is kept: GoTrue cleans flow states up after a day. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/** Sign-ins at external providers in progress, each taken once. */
export function createOAuthFlowStore(db: Database, schema: Schema): OAuthFlowStore {
  const { oauthFlows } = schema;
  return {
    async insert(flow) {
      // Flows nobody came back for are removed as new ones start; the index on created_at finds them.
      await db
        .delete(oauthFlows)
        .where(lt(oauthFlows.createdAt, new Date(flow.createdAt.getTime() - ABANDONED_AFTER_MS)));
      await db.insert(oauthFlows).values({ ...flow });
    },

    async take(id) {
      // Removes and returns in one statement: of two callbacks with the same state, one gets the flow.
      const [row] = await db.delete(oauthFlows).where(eq(oauthFlows.id, id)).returning();
      return row ? { ...row } : null;
    },
  };
}
