import { isUuid, type OneTimeTokenStore } from "@latchkey/domain";
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
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
            codeChallenge: excluded(tokens.codeChallenge),
            codeChallengeMethod: excluded(tokens.codeChallengeMethod),
            passwordHash: excluded(tokens.passwordHash),
            userMetadata: excluded(tokens.userMetadata),
            identityId: excluded(tokens.identityId),
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

    async findByLinkTokenHash(linkTokenHash) {
      const [row] = await db.select().from(tokens).where(eq(tokens.linkTokenHash, linkTokenHash)).limit(1);
      return row ? fromOneTimeTokenRow(row) : null;
    },

    async findByAddress(relatesTo, kinds) {
      if (kinds.length === 0) return [];
      const rows = await db
        .select()
        .from(tokens)
        .where(and(eq(tokens.relatesTo, relatesTo), inArray(tokens.kind, [...kinds])))
        .orderBy(asc(tokens.createdAt), asc(tokens.id));
      return rows.map(fromOneTimeTokenRow);
    },

    async takeCodeAttempt(id, max) {
      // A token id that is not a uuid names no token (and would be a type error in SQL).
      if (!isUuid(id)) return false;
      // One statement, the check and the increment done by the database under the row's lock: concurrent attempts
      // queue on it, and only the first `max` find room, so the limit on guesses holds under parallel requests.
      const taken = await db
        .update(tokens)
        .set({ failedAttempts: sql`${tokens.failedAttempts} + 1` })
        .where(and(eq(tokens.id, id), lt(tokens.failedAttempts, max)))
        .returning({ id: tokens.id });
      return taken.length > 0;
    },

    async delete(id) {
      if (!isUuid(id)) return false;
      // One statement that says whether it removed the row: of two concurrent deletes, the second waits for the
      // first's row lock, then finds the row gone and removes nothing, so exactly one use of a token wins.
      const removed = await db.delete(tokens).where(eq(tokens.id, id)).returning({ id: tokens.id });
      return removed.length > 0;
    },

    async deleteAllOfUser(userId) {
      await db.delete(tokens).where(eq(tokens.userId, userId));
    },
  };
}
