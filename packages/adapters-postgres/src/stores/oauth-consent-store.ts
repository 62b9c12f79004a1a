import { isUuid, type OAuthConsentStore } from "@latchkey/domain";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromOAuthConsentRow, toOAuthConsentRow } from "../rows/oauth-consent-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { excluded } from "./excluded.ts";

/**
 * What users allowed clients (`<ns>oauth_consents`): one row per user and client, found through that pair's unique
 * index; a user's go with it through ON DELETE CASCADE.
 */
export function createOAuthConsentStore(db: Database, schema: Schema): OAuthConsentStore {
  const { oauthConsents: consents } = schema;
  /** The pair's consent unless revoked. */
  const ofPair = (userId: string, clientId: string) =>
    and(eq(consents.userId, userId), eq(consents.clientId, clientId), isNull(consents.revokedAt));
  return {
    async findActive(userId, clientId) {
      // Ids come from requests; one that is no uuid names no consent (and would be a type error).
      if (!isUuid(userId) || !isUuid(clientId)) return null;
      const [row] = await db.select().from(consents).where(ofPair(userId, clientId));
      return row ? fromOAuthConsentRow(row) : null;
    },

    async listActive(userId) {
      if (!isUuid(userId)) return [];
      const rows = await db
        .select()
        .from(consents)
        .where(and(eq(consents.userId, userId), isNull(consents.revokedAt)))
        .orderBy(asc(consents.grantedAt), asc(consents.id));
      return rows.map(fromOAuthConsentRow);
    },

    async save(consent) {
      // The earlier consent's row becomes this one, id included: a concurrent save of the pair waits, then replaces.
      await db
        .insert(consents)
        .values(toOAuthConsentRow(consent))
        .onConflictDoUpdate({
          target: [consents.userId, consents.clientId],
          set: {
            id: excluded(consents.id),
            scopes: excluded(consents.scopes),
            grantedAt: excluded(consents.grantedAt),
            revokedAt: excluded(consents.revokedAt),
          },
        });
    },

    async revoke(userId, clientId, at) {
      if (!isUuid(userId) || !isUuid(clientId)) return false;
      const revoked = await db
        .update(consents)
        .set({ revokedAt: at })
        .where(ofPair(userId, clientId))
        .returning({ id: consents.id });
      return revoked.length > 0;
    },
  };
}
