import type { OAuthAuthorizationStore } from "@latchkey/domain";
import { eq, inArray, lt } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromOAuthAuthorizationRow, toOAuthAuthorizationRow } from "../rows/oauth-authorization-row.ts";
import type { Schema } from "../schema/create-schema.ts";

/**
 * The most expired requests one insert forgets: each insert adds one and may forget this many, so the expired cannot
 * pile up, and no insert pays for a backlog all at once.
 */
const FORGOTTEN_PER_INSERT = 100;

/** Ids and digests come from requests; text holds no NUL, which PostgreSQL refuses outright. */
const unstorable = (text: string) => text.includes("\u0000");

/**
 * Third-party clients' authorization requests (`<ns>oauth_authorizations`), keyed by their opaque ids; a user's go
 * with it through ON DELETE CASCADE.
 */
export function createOAuthAuthorizationStore(db: Database, schema: Schema): OAuthAuthorizationStore {
  const { oauthAuthorizations: requests } = schema;
  return {
    async insert(authorization, now) {
      // Found by the index on expires_at; rows another insert is forgetting at this moment are skipped, not waited on.
      const expired = db
        .select({ id: requests.id })
        .from(requests)
        .where(lt(requests.expiresAt, now))
        .limit(FORGOTTEN_PER_INSERT)
        .for("update", { skipLocked: true });
      const forget = db
        .$with("forgotten")
        .as(db.delete(requests).where(inArray(requests.id, expired)).returning({ id: requests.id }));
      await db.with(forget).insert(requests).values(toOAuthAuthorizationRow(authorization));
    },

    async lock(id) {
      if (unstorable(id)) return null;
      const [row] = await db.select().from(requests).where(eq(requests.id, id)).for("update");
      return row ? fromOAuthAuthorizationRow(row) : null;
    },

    async update(authorization) {
      if (unstorable(authorization.id)) return;
      const { userId, status, codeDigest, sessionId, approvedAt } = toOAuthAuthorizationRow(authorization);
      await db
        .update(requests)
        .set({ userId, status, codeDigest, sessionId, approvedAt })
        .where(eq(requests.id, authorization.id));
    },

    async lockByCode(codeDigest) {
      if (unstorable(codeDigest)) return null;
      // Through the code's unique index; a second transaction waits for the first's row, then sees what it wrote.
      const [row] = await db.select().from(requests).where(eq(requests.codeDigest, codeDigest)).for("update");
      return row ? fromOAuthAuthorizationRow(row) : null;
    },
  };
}
