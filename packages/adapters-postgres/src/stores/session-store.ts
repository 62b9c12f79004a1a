import { type AuditEntry, isUuid, type RefreshToken, type Session, type SessionStore } from "@latchkey/domain";
import { and, eq, gt, isNull, ne, or, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { toIdentityRow } from "../rows/identity-row.ts";
import { toRefreshTokenRow } from "../rows/refresh-token-row.ts";
import { fromSessionRow, type SessionRow, toSessionRow } from "../rows/session-row.ts";
import { toUserRow } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { AmrJson } from "../schema/sessions.ts";
import { rethrowAddressConflict } from "./address-conflict.ts";
import { toAuditRow } from "./audit-log-store.ts";
import {
  insertRows,
  insertRowsWhere,
  oneStatement,
  param,
  type Slot,
  StatementParameters,
  setParams,
  slot,
  slots,
} from "./one-statement.ts";
import { prepared } from "./prepared.ts";

/** What an update writes: what a session's life changes (never its client or scopes, fixed at its opening). */
const UPDATED_COLUMNS = [
  "refreshTokenId",
  "previousRefreshTokenId",
  "rotatedAt",
  "aal",
  "amr",
  "factorId",
  "ip",
  "userAgent",
  "updatedAt",
] as const satisfies readonly (keyof SessionRow)[];

/**
 * What a rotation writes to the session row: the token pointers and the client last seen, never the assurance level
 * (a rotation decided on a read without a lock must not undo a factor's removal that landed after the read).
 */
const ROTATED_COLUMNS = [
  "refreshTokenId",
  "previousRefreshTokenId",
  "rotatedAt",
  "ip",
  "userAgent",
  "updatedAt",
] as const satisfies readonly (keyof SessionRow)[];
/** ...and the guard it checks the row against. */
const ROTATION_COLUMNS = [...ROTATED_COLUMNS, "notAfter"] as const satisfies readonly (keyof SessionRow)[];

/**
 * Sessions; deleting one deletes its refresh tokens through ON DELETE CASCADE. Opening a session and rotating its
 * token are the hot writes: each is one statement (one-statement.ts), prepared once per connection for each number
 * of audit entries (0 to 2) and identities it carries.
 */
export function createSessionStore(db: Database, schema: Schema): SessionStore {
  const { users, identities, sessions, refreshTokens, auditLogEntries } = schema;
  const rethrowConflict = rethrowAddressConflict(schema.namespace);
  const user = slot(users, "u_");
  const session = slot(sessions, "s_");
  const token = slot(refreshTokens, "t_");
  const auditSlotsByCount: Slot<typeof auditLogEntries>[][] = [];
  const auditSlots = (audit: readonly AuditEntry[]) =>
    (auditSlotsByCount[audit.length] ??= slots(auditLogEntries, "a", audit.length));
  /** The session, its token and the audit entries: what every opening writes after its guard. */
  const opening =
    (audit: readonly AuditEntry[], exceptSession = false) =>
    (guard: SQLWrapper) => [
      ...(exceptSession ? [] : [insertRowsWhere([session], guard)]),
      insertRowsWhere([token], guard),
      ...(audit.length > 0 ? [insertRowsWhere(auditSlots(audit), guard)] : []),
    ];
  const fill = (
    parameters: StatementParameters,
    opened: Session,
    firstToken: RefreshToken,
    audit: readonly AuditEntry[],
  ) => {
    parameters.row(session, toSessionRow(opened)).row(token, toRefreshTokenRow(firstToken));
    return parameters.rows(auditSlots(audit), audit.map(toAuditRow)).values;
  };

  return {
    async update(updated) {
      // Every refresh writes here: prepared, with all the columns a session's life changes.
      const statement = prepared(db, schema.namespace, "session_update", (name) =>
        db
          .update(sessions)
          .set(setParams(slot(sessions), UPDATED_COLUMNS))
          .where(eq(sessions.id, sql.placeholder("id")))
          .prepare(name),
      );
      const parameters = new StatementParameters().row(slot(sessions), toSessionRow(updated), UPDATED_COLUMNS);
      await statement.execute(parameters.value("id", updated.id).values);
    },

    async open(opened, firstToken, audit = []) {
      // The session row is the guard: an insert that always writes.
      const statement = prepared(db, schema.namespace, `session_open_${audit.length}`, (name) =>
        oneStatement(db, insertRows([session], sql`id`), opening(audit, true)).prepare(name),
      );
      await statement.execute(fill(new StatementParameters(), opened, firstToken, audit));
    },

    async openWithPassword({ at, verifiedHash, rehash }, opened, firstToken, audit) {
      // The guard: the user row, while it is not deleted and still has the hash that was verified.
      const statement = prepared(db, schema.namespace, `session_open_with_password_${audit.length}`, (name) => {
        const signedIn = db
          .update(users)
          .set(setParams(user, ["lastSignInAt", "passwordHash"]))
          .where(
            and(
              eq(users.id, param(session, "userId")),
              eq(users.passwordHash, sql.placeholder("verified_hash")),
              isNull(users.deletedAt),
            ),
          )
          .returning({ id: users.id });
        return oneStatement(db, signedIn.getSQL(), opening(audit)).prepare(name);
      });
      const parameters = new StatementParameters()
        .row(user, { lastSignInAt: at, passwordHash: rehash ?? verifiedHash })
        .value("verified_hash", verifiedHash);
      const written = await statement.execute(fill(parameters, opened, firstToken, audit));
      return written.length > 0;
    },

    async openForNewUser(created, opened, firstToken, audit) {
      // The guard: the user row (a conflict on an address fails the whole statement).
      const identitySlots = slots(identities, "i", created.identities.length);
      const name = `session_open_for_new_user_${created.identities.length}_${audit.length}`;
      const statement = prepared(db, schema.namespace, name, (statementName) =>
        oneStatement(db, insertRows([user], sql`id`), (guard) => [
          ...(identitySlots.length > 0 ? [insertRowsWhere(identitySlots, guard)] : []),
          ...opening(audit)(guard),
        ]).prepare(statementName),
      );
      const parameters = new StatementParameters()
        .row(user, toUserRow(created))
        .rows(identitySlots, created.identities.map(toIdentityRow));
      await statement.execute(fill(parameters, opened, firstToken, audit)).catch(rethrowConflict);
    },

    async rotate(rotated, child, audit = []) {
      // The guard: the session row, while it still points at the child's parent and ends when the caller saw it
      // end. A concurrent rotation holding the row makes this one wait, then re-check on the row as it left it.
      const statement = prepared(db, schema.namespace, `session_rotate_${audit.length}`, (name) => {
        const moved = db
          .update(sessions)
          .set(setParams(session, ROTATED_COLUMNS))
          .where(
            and(
              eq(sessions.id, param(session, "id")),
              eq(sessions.refreshTokenId, param(token, "parentId")),
              sql`${sessions.notAfter} is not distinct from ${param(session, "notAfter")}`,
            ),
          )
          .returning({ id: sessions.id });
        return oneStatement(db, moved.getSQL(), (guard) => [
          insertRowsWhere([token], guard),
          ...(audit.length > 0 ? [insertRowsWhere(auditSlots(audit), guard)] : []),
        ]).prepare(name);
      });
      const parameters = new StatementParameters()
        .row(token, toRefreshTokenRow(child))
        .row(session, toSessionRow(rotated), [...ROTATION_COLUMNS, "id"]);
      const written = await statement.execute(parameters.rows(auditSlots(audit), audit.map(toAuditRow)).values);
      return written.length > 0;
    },

    async deleteAllOfUser(userId, options) {
      const except = options?.except;
      await db
        .delete(sessions)
        .where(
          and(
            eq(sessions.userId, userId),
            except === undefined ? undefined : ne(sessions.id, except),
            options?.onlyAal1 ? eq(sessions.aal, "aal1") : undefined,
          ),
        );
    },

    async downgradeFactor(userId, factorId, method, at) {
      if (!isUuid(userId) || !isUuid(factorId)) return;
      // amr keeps its other entries in their order; the sessions are found through the user's index.
      const entry = sql.identifier("entry");
      const position = sql.identifier("position");
      const remainingAmr = sql<AmrJson[]>`coalesce((
        select jsonb_agg(${entry} order by ${position})
        from jsonb_array_elements(${sessions.amr}) with ordinality as amr_entry(${entry}, ${position})
        where ${entry} ->> 'method' <> ${method}
      ), '[]'::jsonb)`;
      await db
        .update(sessions)
        .set({ aal: "aal1", factorId: null, amr: remainingAmr, updatedAt: at })
        .where(and(eq(sessions.userId, userId), eq(sessions.factorId, factorId)));
    },

    async deleteOne(userId, sessionId) {
      await db.delete(sessions).where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)));
    },

    async deleteOfClient(userId, oauthClientId) {
      if (!isUuid(userId) || !isUuid(oauthClientId)) return;
      // Found through the partial index on (user_id, oauth_client_id); their refresh tokens go by ON DELETE CASCADE.
      await db.delete(sessions).where(and(eq(sessions.userId, userId), eq(sessions.oauthClientId, oauthClientId)));
    },

    async endAllOfUser(userId, at) {
      await db
        .update(sessions)
        .set({ notAfter: at })
        .where(and(eq(sessions.userId, userId), or(isNull(sessions.notAfter), gt(sessions.notAfter, at))));
    },

    async listOfUser(userId) {
      if (!isUuid(userId)) return [];
      const rows = await db.select().from(sessions).where(eq(sessions.userId, userId));
      return rows.map(fromSessionRow);
    },
  };
}
