import { AuthError, isUuid, type PasskeyStore } from "@latchkey/domain";
import { and, asc, count, eq } from "drizzle-orm";
import type { Database } from "../database.ts";
import { credentialIdBytes, fromPasskeyRow, toPasskeyRow } from "../rows/passkey-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { webauthnCredentialConstraint } from "../schema/webauthn-credentials.ts";
import { violatedUniqueConstraint } from "./database-error.ts";

/**
 * Rethrows a failed insert as the AuthError of a credential registered already. The unique constraint decides, so a
 * concurrent registration of the same credential that won the race is reported like any other.
 */
function rethrowCredentialConflict(namespace: string): (error: unknown) => never {
  return (error) => {
    if (violatedUniqueConstraint(error) === webauthnCredentialConstraint(namespace)) {
      throw new AuthError("webauthn_credential_exists", "This credential is already registered");
    }
    throw error;
  };
}

/** Passkeys (`<ns>webauthn_credentials`); a user's go with it through ON DELETE CASCADE. */
export function createPasskeyStore(db: Database, schema: Schema): PasskeyStore {
  const { webauthnCredentials: passkeys } = schema;
  const ofUser = (userId: string, passkeyId: string) => and(eq(passkeys.id, passkeyId), eq(passkeys.userId, userId));
  return {
    async insert(passkey) {
      await db.insert(passkeys).values(toPasskeyRow(passkey)).catch(rethrowCredentialConflict(schema.namespace));
    },

    async listOfUser(userId) {
      if (!isUuid(userId)) return [];
      const rows = await db
        .select()
        .from(passkeys)
        .where(eq(passkeys.userId, userId))
        .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
      return rows.map(fromPasskeyRow);
    },

    async countOfUser(userId) {
      if (!isUuid(userId)) return 0;
      const [row] = await db.select({ count: count() }).from(passkeys).where(eq(passkeys.userId, userId));
      return row?.count ?? 0;
    },

    async find(userId, passkeyId) {
      // Passkey ids come from request paths; one that is not a uuid names no passkey (and would be a type error).
      if (!isUuid(userId) || !isUuid(passkeyId)) return null;
      const [row] = await db.select().from(passkeys).where(ofUser(userId, passkeyId));
      return row ? fromPasskeyRow(row) : null;
    },

    async findByCredentialId(credentialId, options) {
      // Credential ids come from clients: only the exact spelling of registered bytes finds them.
      const bytes = credentialIdBytes(credentialId);
      if (bytes === null) return null;
      const query = db.select().from(passkeys).where(eq(passkeys.credentialId, bytes));
      // One statement: the row it locks is the only one it reads, handed back in its newest version once locked.
      const [row] = await (options?.forUpdate ? query.for("update") : query);
      return row ? fromPasskeyRow(row) : null;
    },

    async recordUse(passkey) {
      const { signCount, backedUp, lastUsedAt, updatedAt } = passkey;
      await db
        .update(passkeys)
        .set({ signCount, backedUp, lastUsedAt, updatedAt })
        .where(ofUser(passkey.userId, passkey.id));
    },

    async rename(passkey) {
      const { friendlyName, updatedAt } = passkey;
      await db.update(passkeys).set({ friendlyName, updatedAt }).where(ofUser(passkey.userId, passkey.id));
    },

    async delete(userId, passkeyId) {
      if (!isUuid(userId) || !isUuid(passkeyId)) return false;
      const deleted = await db.delete(passkeys).where(ofUser(userId, passkeyId)).returning({ id: passkeys.id });
      return deleted.length > 0;
    },
  };
}
