import type { IdentityStore } from "@latchkey/domain";
import { eq } from "drizzle-orm";
import type { Database } from "../database.ts";
import { toIdentityRow } from "../rows/identity-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { excluded } from "./excluded.ts";

/** Identities, written one at a time; they are read with their user. */
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
      if (saved.length === 0)
        throw new Error(`identity ${identity.provider}/${identity.providerId} belongs to another user`);
    },

    async deleteAllOfUser(userId) {
      await db.delete(identities).where(eq(identities.userId, userId));
    },
  };
}
