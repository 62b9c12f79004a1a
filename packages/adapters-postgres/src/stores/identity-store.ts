import { AuthError, type Identity, type IdentityStore } from "@latchkey/domain";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { type IdentityRow, toIdentityRow } from "../rows/identity-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { excluded } from "./excluded.ts";

/** The domain's Identity from its row. */
function fromRow(row: IdentityRow): Identity {
  return { ...row };
}

/** Identities, written one at a time; most are read with their user. */
export function createIdentityStore(db: Database, schema: Schema): IdentityStore {
  const { identities } = schema;
  return {
    async save(identity) {
      const saved = await db
        .insert(identities)
        .values(toIdentityRow(identity))
        .onConflictDoUpdate({
          // The existing row keeps its id and created_at.
          target: [identities.provider, identities.providerId],
          set: {
            identityData: excluded(identities.identityData),
            lastSignInAt: excluded(identities.lastSignInAt),
            updatedAt: excluded(identities.updatedAt),
          },
          setWhere: eq(identities.userId, excluded(identities.userId)),
        })
        .returning({ id: identities.id });
      // The guard above failed: the provider's subject is already linked to someone else.
      if (saved.length === 0) {
        throw new AuthError("identity_already_exists", "Identity is already linked to another user");
      }
    },

    async find(provider, providerId) {
      const [row] = await db
        .select()
        .from(identities)
        .where(and(eq(identities.provider, provider), eq(identities.providerId, providerId)));
      return row ? fromRow(row) : null;
    },

    async findByEmails(emails) {
      if (emails.length === 0) return [];
      // The expression of identities_email_idx, so the index answers.
      const email = sql<string>`lower(${identities.identityData} ->> 'email')`;
      const rows = await db
        .select()
        .from(identities)
        .where(inArray(email, [...emails]));
      return rows.map(fromRow);
    },

    async delete(userId, identityId) {
      const deleted = await db
        .delete(identities)
        .where(and(eq(identities.id, identityId), eq(identities.userId, userId)))
        .returning({ id: identities.id });
      return deleted.length > 0;
    },

    async deleteAllOfUser(userId) {
      await db.delete(identities).where(eq(identities.userId, userId));
    },
  };
}
