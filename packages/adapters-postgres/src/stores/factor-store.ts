import { AuthError, type Factor, type FactorStore, isUuid } from "@latchkey/domain";
import { and, eq, ne, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromFactorRow, toFactorRow } from "../rows/factor-row.ts";
import { fromMfaChallengeRow, toMfaChallengeRow } from "../rows/mfa-challenge-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { mfaFactorConstraints } from "../schema/mfa-factors.ts";
import { violatedUniqueConstraint } from "./database-error.ts";

/**
 * Rethrows a write of `factor` that failed, as the AuthError GoTrue answers when it broke one of the factors' unique
 * indexes (GoTrue's wording). As for addresses (address-conflict.ts), the index decides, so a concurrent enrollment
 * that won the race is reported like any other, and inside a transaction the AuthError must propagate out of tx.run.
 */
function rethrowFactorConflict(namespace: string, factor: Factor): (error: unknown) => never {
  const constraints = mfaFactorConstraints(namespace);
  return (error) => {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === constraints.friendlyName) {
      throw new AuthError(
        "mfa_factor_name_conflict",
        `A factor with the friendly name "${factor.friendlyName ?? ""}" for this user already exists`,
      );
    }
    if (constraint === constraints.verifiedPhone) {
      throw new AuthError(
        "mfa_verified_factor_exists",
        "A verified phone factor already exists, unenroll the existing factor to continue",
      );
    }
    if (constraint === constraints.webauthnCredential) {
      throw new AuthError("webauthn_credential_exists", "This credential is already registered");
    }
    throw error;
  };
}

/** Second factors and their challenges; a factor's challenges go with it through ON DELETE CASCADE. */
export function createFactorStore(db: Database, schema: Schema): FactorStore {
  const { mfaFactors: factors, mfaChallenges: challenges } = schema;
  return {
    async insert(factor) {
      await db.insert(factors).values(toFactorRow(factor)).catch(rethrowFactorConflict(schema.namespace, factor));
    },

    async update(factor) {
      const { status, friendlyName, phone, lastTotpStep, webAuthnCredential, lastChallengedAt, updatedAt } =
        toFactorRow(factor);
      await db
        .update(factors)
        .set({ status, friendlyName, phone, lastTotpStep, webAuthnCredential, lastChallengedAt, updatedAt })
        .where(and(eq(factors.id, factor.id), eq(factors.userId, factor.userId)))
        .catch(rethrowFactorConflict(schema.namespace, factor));
    },

    async find(userId, factorId, options) {
      // Factor ids come from request paths; one that is not a uuid names no factor (and would be a type error).
      if (!isUuid(userId) || !isUuid(factorId)) return null;
      const query = db
        .select()
        .from(factors)
        .where(and(eq(factors.id, factorId), eq(factors.userId, userId)));
      // One statement is enough here: the row it locks is the only one it reads, and READ COMMITTED hands back its
      // newest version once the lock is granted.
      const [row] = await (options?.forUpdate ? query.for("update") : query);
      return row ? fromFactorRow(row) : null;
    },

    async delete(userId, factorId) {
      if (!isUuid(userId) || !isUuid(factorId)) return false;
      const deleted = await db
        .delete(factors)
        .where(and(eq(factors.id, factorId), eq(factors.userId, userId)))
        .returning({ id: factors.id });
      return deleted.length > 0;
    },

    async deleteAllOfUser(userId) {
      if (!isUuid(userId)) return;
      await db.delete(factors).where(eq(factors.userId, userId));
    },

    async deleteUnverified(userId, { type, phone, idleBefore, except }) {
      if (!isUuid(userId)) return;
      await db.delete(factors).where(
        and(
          eq(factors.userId, userId),
          eq(factors.status, "unverified"),
          type === undefined ? undefined : eq(factors.factorType, type),
          phone === undefined ? undefined : eq(factors.phone, phone),
          // Idle: not challenged since idleBefore, or, never challenged, created before it. The instant is sent as
          // text: compared with an expression, drizzle knows no column to encode a Date for.
          idleBefore === undefined
            ? undefined
            : sql`coalesce(${factors.lastChallengedAt}, ${factors.createdAt}) < ${idleBefore.toISOString()}::timestamptz`,
          // An id that is not a uuid is no factor's: there is nothing to spare.
          except === undefined || !isUuid(except) ? undefined : ne(factors.id, except),
        ),
      );
    },

    async insertChallenge(challenge) {
      await db.insert(challenges).values(toMfaChallengeRow(challenge));
    },

    async lockChallenge(factorId, challengeId) {
      // Challenge ids come from request bodies.
      if (!isUuid(factorId) || !isUuid(challengeId)) return null;
      const [row] = await db
        .select()
        .from(challenges)
        .where(and(eq(challenges.id, challengeId), eq(challenges.factorId, factorId)))
        .for("update");
      return row ? fromMfaChallengeRow(row) : null;
    },

    async markChallengeVerified(challengeId, at) {
      if (!isUuid(challengeId)) return;
      await db.update(challenges).set({ verifiedAt: at }).where(eq(challenges.id, challengeId));
    },

    async deleteChallenge(challengeId) {
      if (!isUuid(challengeId)) return;
      await db.delete(challenges).where(eq(challenges.id, challengeId));
    },
  };
}
