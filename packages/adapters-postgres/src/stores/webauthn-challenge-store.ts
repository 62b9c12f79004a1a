import { isUuid, type WebAuthnChallengeStore } from "@latchkey/domain";
import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromWebAuthnChallengeRow, toWebAuthnChallengeRow } from "../rows/webauthn-challenge-row.ts";
import type { Schema } from "../schema/create-schema.ts";

/**
 * The most expired challenges one insert forgets: each insert adds one and may forget this many, so the expired
 * cannot pile up, and no insert pays for a backlog all at once.
 */
const FORGOTTEN_PER_INSERT = 100;

/** Passkey ceremonies begun, each taken once; a user's go with it through ON DELETE CASCADE. */
export function createWebAuthnChallengeStore(db: Database, schema: Schema): WebAuthnChallengeStore {
  const { webauthnChallenges: challenges } = schema;
  return {
    async insert(challenge, now) {
      // Found by the index on expires_at; rows another insert is forgetting at this moment are skipped, not waited on.
      const expired = db
        .select({ id: challenges.id })
        .from(challenges)
        .where(lt(challenges.expiresAt, now))
        .limit(FORGOTTEN_PER_INSERT)
        .for("update", { skipLocked: true });
      const forget = db
        .$with("forgotten")
        .as(db.delete(challenges).where(inArray(challenges.id, expired)).returning({ id: challenges.id }));
      await db.with(forget).insert(challenges).values(toWebAuthnChallengeRow(challenge));
    },

    async take(id, ceremony, userId) {
      // Ids come from request bodies; one that is not a uuid names no challenge (and would be a type error).
      if (!isUuid(id) || (userId !== null && !isUuid(userId))) return null;
      // Removes and returns in one statement: of two concurrent takes, the second finds the row gone.
      const [row] = await db
        .delete(challenges)
        .where(
          and(
            eq(challenges.id, id),
            eq(challenges.ceremony, ceremony),
            userId === null ? isNull(challenges.userId) : eq(challenges.userId, userId),
          ),
        )
        .returning();
      return row ? fromWebAuthnChallengeRow(row) : null;
    },
  };
}
