import type { AuditEntry, RefreshToken, Session, SessionStore } from "@latchkey/domain";
import { and, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Database } from "../database.ts";
import { toIdentityRow } from "../rows/identity-row.ts";
import { toRefreshTokenRow } from "../rows/refresh-token-row.ts";
import { type SessionRow, toSessionRow } from "../rows/session-row.ts";
import { toUserRow } from "../rows/user-row.ts";
import type { Schema } from "../schema/create-schema.ts";
import { rethrowAddressConflict } from "./address-conflict.ts";
import { toAuditRow } from "./audit-log-store.ts";
import {
  insertableKeys,
  insertWhere,
  insertWithPlaceholders,
  placeholders,
  prepared,
  StatementParameters,
} from "./prepared.ts";

const UPDATED_COLUMNS = [
  "refreshTokenId",
  "previousRefreshTokenId",
  "rotatedAt",
  "aal",
  "amr",
  "ip",
  "userAgent",
  "updatedAt",
] as const satisfies readonly (keyof SessionRow)[];

/** What a rotation writes to the session row, and the guard it checks the row against. */
const ROTATION_COLUMNS = [...UPDATED_COLUMNS, "notAfter"] as const satisfies readonly (keyof SessionRow)[];

/** Placeholder prefixes of the audit entries of one statement, in the order they are logged. */
const auditPrefixes = (audit: readonly AuditEntry[]) => audit.map((_, index) => `a${index}_`);

/** Sessions; deleting one deletes its refresh tokens through ON DELETE CASCADE. */
export function createSessionStore(db: Database, schema: Schema): SessionStore {
  const { users, identities, sessions, refreshTokens, auditLogEntries } = schema;
  const rethrowConflict = rethrowAddressConflict(schema.namespace);
  const withSession = (parameters: StatementParameters, session: Session, firstToken: RefreshToken) =>
    parameters
      .columns(sessions, toSessionRow(session), "s_")
      .columns(refreshTokens, toRefreshTokenRow(firstToken), "t_");
  const withAudit = (parameters: StatementParameters, audit: readonly AuditEntry[]) => {
    const prefixes = auditPrefixes(audit);
    for (const [index, entry] of audit.entries())
      parameters.columns(auditLogEntries, toAuditRow(entry), prefixes[index]);
    return parameters;
  };
  return {
    async update(session) {
      // Every refresh writes here: prepared, with all the columns a session's life changes.
      const statement = prepared(db, schema.namespace, "session_update", (name) =>
        db
          .update(sessions)
          .set(placeholders(UPDATED_COLUMNS) as never)
          .where(eq(sessions.id, sql.placeholder("id")))
          .prepare(name),
      );
      await statement.execute(
        new StatementParameters().columns(sessions, toSessionRow(session), "", UPDATED_COLUMNS).value("id", session.id)
          .values,
      );
    },

    // Each of these is one statement (the other writes in data-modifying CTEs): a single statement is atomic on its
    // own, so a sign-in or a refresh costs no BEGIN and COMMIT round trips for these writes. One prepared statement
    // per number of audit entries (0 to 2).
    async open(session, firstToken, audit = []) {
      const statement = prepared(db, schema.namespace, `session_open_${audit.length}`, (name) => {
        const opened = db.$with("opened").as(insertWithPlaceholders(db, sessions, "s_") as never);
        const audited = db
          .$with("audited")
          .as(insertWithPlaceholders(db, auditLogEntries, ...auditPrefixes(audit)) as never);
        return db
          .with(...(audit.length > 0 ? [opened, audited] : [opened]))
          .insert(refreshTokens)
          .values(placeholders(insertableKeys(refreshTokens), "t_") as never)
          .prepare(name);
      });
      await statement.execute(withAudit(withSession(new StatementParameters(), session, firstToken), audit).values);
    },

    async openWithPassword({ at, verifiedHash, rehash }, session, firstToken, audit) {
      const statement = prepared(db, schema.namespace, `session_open_with_password_${audit.length}`, (name) => {
        // The guard: every other part inserts its rows only for the user row this one wrote.
        const signedIn = db.$with("signed_in").as(
          db
            .update(users)
            .set(placeholders(["lastSignInAt", "passwordHash"], "u_") as never)
            .where(
              and(
                eq(users.id, sql.placeholder("s_userId")),
                eq(users.passwordHash, sql.placeholder("verified_hash")),
                isNull(users.deletedAt),
              ),
            )
            .returning({ id: users.id }) as never,
        );
        const opened = db.$with("opened").as(insertWhere(sessions, signedIn, "s_") as never);
        const issued = db.$with("issued").as(insertWhere(refreshTokens, signedIn, "t_") as never);
        const audited = db
          .$with("audited")
          .as(insertWhere(auditLogEntries, signedIn, ...auditPrefixes(audit)) as never);
        return db
          .with(...(audit.length > 0 ? [signedIn, opened, issued, audited] : [signedIn, opened, issued]))
          .select({ id: sql<string>`id` })
          .from(signedIn)
          .prepare(name);
      });
      const parameters = new StatementParameters()
        .columns(users, { lastSignInAt: at, passwordHash: rehash ?? verifiedHash }, "u_")
        .value("verified_hash", verifiedHash);
      const written = await statement.execute(withAudit(withSession(parameters, session, firstToken), audit).values);
      return written.length > 0;
    },

    async openForNewUser(user, session, firstToken, audit) {
      const { identities: userIdentities } = user;
      const identityPrefixes = userIdentities.map((_, index) => `i${index}_`);
      const statement = prepared(
        db,
        schema.namespace,
        `session_open_for_new_user_${userIdentities.length}_${audit.length}`,
        (name) => {
          // The guard, as in openWithPassword: every other part inserts its rows only for the user row this one wrote.
          const created = db
            .$with("created")
            .as(insertWithPlaceholders(db, users, "u_").returning({ id: users.id }) as never);
          const identified = db.$with("identified").as(insertWhere(identities, created, ...identityPrefixes) as never);
          const opened = db.$with("opened").as(insertWhere(sessions, created, "s_") as never);
          const issued = db.$with("issued").as(insertWhere(refreshTokens, created, "t_") as never);
          const audited = db
            .$with("audited")
            .as(insertWhere(auditLogEntries, created, ...auditPrefixes(audit)) as never);
          return db
            .with(
              created,
              ...(userIdentities.length > 0 ? [identified] : []),
              opened,
              issued,
              ...(audit.length > 0 ? [audited] : []),
            )
            .select({ id: sql<string>`id` })
            .from(created)
            .prepare(name);
        },
      );
      const parameters = new StatementParameters().columns(users, toUserRow(user), "u_");
      for (const [index, identity] of userIdentities.entries()) {
        parameters.columns(identities, toIdentityRow(identity), identityPrefixes[index]);
      }
      await statement
        .execute(withAudit(withSession(parameters, session, firstToken), audit).values)
        .catch(rethrowConflict);
    },

    async rotate(session, child, audit = []) {
      const statement = prepared(db, schema.namespace, `session_rotate_${audit.length}`, (name) => {
        // The guard, as in openWithPassword: the child and the audit entries are inserted only for the session row
        // this part wrote. A concurrent rotation holding the row makes this one wait, then re-check the condition
        // on the row as that one left it.
        const rotated = db.$with("rotated").as(
          db
            .update(sessions)
            .set(placeholders(UPDATED_COLUMNS, "s_") as never)
            .where(
              and(
                eq(sessions.id, sql.placeholder("s_id")),
                eq(sessions.refreshTokenId, sql.placeholder("t_parentId")),
                sql`${sessions.notAfter} is not distinct from ${sql.placeholder("s_notAfter")}`,
              ),
            )
            .returning({ id: sessions.id }) as never,
        );
        const added = db.$with("child").as(insertWhere(refreshTokens, rotated, "t_") as never);
        const audited = db.$with("audited").as(insertWhere(auditLogEntries, rotated, ...auditPrefixes(audit)) as never);
        return db
          .with(...(audit.length > 0 ? [rotated, added, audited] : [rotated, added]))
          .select({ id: sql<string>`id` })
          .from(rotated)
          .prepare(name);
      });
      const parameters = new StatementParameters()
        .columns(refreshTokens, toRefreshTokenRow(child), "t_")
        .columns(sessions, toSessionRow(session), "s_", ROTATION_COLUMNS)
        .value("s_id", session.id);
      const written = await statement.execute(withAudit(parameters, audit).values);
      return written.length > 0;
    },

    async deleteAllOfUser(userId, options) {
      const except = options?.except;
      await db
        .delete(sessions)
        .where(
          except === undefined
            ? eq(sessions.userId, userId)
            : and(eq(sessions.userId, userId), ne(sessions.id, except)),
        );
    },

    async deleteOne(userId, sessionId) {
      await db.delete(sessions).where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)));
    },

    async endAllOfUser(userId, at) {
      await db
        .update(sessions)
        .set({ notAfter: at })
        .where(and(eq(sessions.userId, userId), or(isNull(sessions.notAfter), gt(sessions.notAfter, at))));
    },
  };
}
