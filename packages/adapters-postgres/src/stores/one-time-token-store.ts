import type { OneTimeTokenStore } from "@latchkey/domain";
import { and, eq } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromOneTimeTokenRow, toOneTimeTokenRow } from "../rows/one-time-token-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { excluded } from "./excluded.ts";

/** Pending one-time tokens, one per user and kind. */
export function createOneTimeTokenStore(db: Database, schema: Schema): OneTimeTokenStore {
  const { oneTimeTokens: tokens } = schema;
  return {
    async replace(token) {
      // One statement, so two concurrent replacements cannot both insert.
      await db
        .insert(tokens)
        .values(toOneTimeTokenRow(token))
        .onConflictDoUpdate({
          target: [tokens.userId, tokens.kind],
          set: {
            id: excluded(tokens.id),
            relatesTo: excluded(tokens.relatesTo),
            linkTokenHash: excluded(tokens.linkTokenHash),
            otpHash: excluded(tokens.otpHash),
            failedAttempts: excluded(tokens.failedAttempts),
            createdAt: excluded(tokens.createdAt),
          },
        });
    },

    async findByUser(userId, kind) {
      const [row] = await db
        .select()
        .from(tokens)
        .where(and(eq(tokens.userId, userId), eq(tokens.kind, kind)))
        .limit(1);
      return row ? fromOneTimeTokenRow(row) : null;
    },

    async deleteAllOfUser(userId) {
      await db.delete(tokens).where(eq(tokens.userId, userId));
    },
  };
}
