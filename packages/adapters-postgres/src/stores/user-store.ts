import { type Factor, type Identity, isUuid, type UserStore } from "@latchkey/domain";
import { and, asc, count, desc, eq, inArray, or, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { fromFactorRow } from "../rows/factor-row.ts";
import { toIdentityRow } from "../rows/identity-row.ts";
import { fromSessionJson, type SessionJson } from "../rows/session-row.ts";
import { fromUserRow, toUserRow } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { rethrowAddressConflict } from "./address-conflict.ts";
import type { Atomic } from "./atomic.ts";
import { containsText } from "./contains-text.ts";
import { insertOne, prepared } from "./prepared.ts";
import { rowJson, selectUserBy, toUser, userColumns } from "./user-query.ts";

const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** Users with their identities and factors (which UserStore reads, and FactorStore writes). */
export function createUserStore(db: Database, schema: Schema, atomic: Atomic): UserStore {
  const { users, identities, mfaFactors, sessions } = schema;
  const rethrowConflict = rethrowAddressConflict(schema.namespace);

  return {
    async insert(user) {
      if (user.identities.length === 0) {
        await insertOne(db, {
          namespace: schema.namespace,
          name: "user_insert",
          table: users,
          row: toUserRow(user),
        }).catch(rethrowConflict);
        return;
      }
      await atomic(async (db) => {
        await insertOne(db, { namespace: schema.namespace, name: "user_insert", table: users, row: toUserRow(user) });
        for (const identity of user.identities) {
          await insertOne(db, {
            namespace: schema.namespace,
            name: "identity_insert",
            table: identities,
            row: toIdentityRow(identity),
          });
        }
      }).catch(rethrowConflict);
    },

    async update(user) {
      const { id, ...columns } = toUserRow(user);
      await db.update(users).set(columns).where(eq(users.id, id)).catch(rethrowConflict);
    },

    async findById(id, options) {
      // Ids can come from a request; one that is not a uuid matches no row (and would be a type error in SQL).
      if (!isUuid(id)) return null;
      if (!options?.forUpdate) return selectUserBy(db, schema, "id", id);
      // Lock first, then read in a second statement: under READ COMMITTED that statement sees everything
      // committed before the lock was granted, identities and factors included, where a single locking statement
      // would re-read only the locked row and return identities and factors from before the wait.
      return atomic(async (db) => {
        const locked = await db.select({ id: users.id }).from(users).where(eq(users.id, id)).for("update");
        return locked.length === 0 ? null : selectUserBy(db, schema, "id", id);
      });
    },

    findByEmail: (email) => selectUserBy(db, schema, "email", email),

    findByPhone: (phone) => selectUserBy(db, schema, "phone", phone),

    async findWithSession(userId, sessionId) {
      if (!isUuid(userId)) return null;
      // GET /user and every authenticated request: the user, its identities and factors and the session in one
      // prepared query.
      const statement = prepared(db, schema.namespace, "user_with_session", (name) =>
        db
          .select({ ...userColumns(schema), session: rowJson<SessionJson | null>(sessions) })
          .from(users)
          .leftJoin(sessions, and(eq(sessions.id, sql.placeholder("sessionId")), eq(sessions.userId, users.id)))
          .where(eq(users.id, sql.placeholder("userId")))
          .limit(1)
          .prepare(name),
      );
      // A malformed id names no session; comparing it with a uuid column would be an error instead. The nil uuid is
      // no session's id (ours are random, version 4).
      const [row] = await statement.execute({ userId, sessionId: isUuid(sessionId) ? sessionId : NIL_UUID });
      if (!row) return null;
      return { user: toUser(row), session: row.session ? fromSessionJson(row.session) : null };
    },

    async list({ page, perPage, order, aud, filter, email, phone }) {
      // eq on email is answered by its plain index (the unique one leaves SSO users out), on phone by its unique
      // index; the filter has to scan.
      const where = and(
        aud === undefined ? undefined : eq(users.aud, aud),
        email === undefined ? undefined : eq(users.email, email),
        phone === undefined ? undefined : eq(users.phone, phone),
        filter
          ? or(containsText(users.email, filter), containsText(sql`${users.userMetadata} ->> 'full_name'`, filter))
          : undefined,
      );
      const direction = order === "asc" ? asc : desc;
      const [rows, [counted]] = await Promise.all([
        db
          .select()
          .from(users)
          .where(where)
          .orderBy(direction(users.createdAt), direction(users.id))
          .limit(perPage)
          .offset((page - 1) * perPage),
        db.select({ total: count() }).from(users).where(where),
      ]);
      // The page's identities and factors in one query each, rather than subqueries per user.
      const identitiesByUser = new Map<string, Identity[]>(rows.map((row) => [row.id, []]));
      const factorsByUser = new Map<string, Factor[]>(rows.map((row) => [row.id, []]));
      if (rows.length > 0) {
        const ids = [...identitiesByUser.keys()];
        const [identitiesOfPage, factorsOfPage] = await Promise.all([
          db
            .select()
            .from(identities)
            .where(inArray(identities.userId, ids))
            .orderBy(asc(identities.createdAt), asc(identities.id)),
          db
            .select()
            .from(mfaFactors)
            .where(inArray(mfaFactors.userId, ids))
            .orderBy(asc(mfaFactors.createdAt), asc(mfaFactors.id)),
        ]);
        for (const identity of identitiesOfPage) identitiesByUser.get(identity.userId)?.push(identity);
        for (const factor of factorsOfPage) factorsByUser.get(factor.userId)?.push(fromFactorRow(factor));
      }
      return {
        users: rows.map((row) => fromUserRow(row, identitiesByUser.get(row.id) ?? [], factorsByUser.get(row.id) ?? [])),
        total: counted?.total ?? 0,
      };
    },

    async delete(id) {
      if (!isUuid(id)) return false;
      // Identities, factors (and so challenges), sessions (and so refresh tokens), one-time tokens and flows go by
      // ON DELETE CASCADE.
      const deleted = await db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
      return deleted.length > 0;
    },
  } satisfies UserStore;
}
