import type { UsedIdTokenStore } from "@latchkey/domain";
import { lt } from "drizzle-orm";
import type { Database } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";

/** The id_tokens signed in with, each remembered until it expires. */
export function createUsedIdTokenStore(db: Database, schema: Schema): UsedIdTokenStore {
  const { usedIdTokens } = schema;
  return {
    async remember(digest, expiresAt, now) {
      // Expired ones go as new ones come; the index on expires_at finds them.
      await db.delete(usedIdTokens).where(lt(usedIdTokens.expiresAt, now));
      // A concurrent insert of the same digest waits for the first one's transaction, then inserts nothing.
      const inserted = await db
        .insert(usedIdTokens)
        .values({ digest, expiresAt })
        .onConflictDoNothing()
        .returning({ digest: usedIdTokens.digest });
      return inserted.length > 0;
    },
  };
}
