import type { Session } from "@latchkey/domain";
import type { SessionsTable } from "../schema/sessions.ts";

export type SessionRow = SessionsTable["$inferSelect"];

/** The session's columns; amr times as ISO 8601 strings inside the jsonb. */
export function toSessionRow(session: Session): SessionRow {
  return {
    id: session.id,
    userId: session.userId,
    aal: session.aal,
    amr: session.amr.map((entry) => ({ method: entry.method, at: entry.at.toISOString() })),
    refreshTokenId: session.refreshTokenId,
    previousRefreshTokenId: session.previousRefreshTokenId,
    rotatedAt: session.rotatedAt,
    ip: session.ip,
    userAgent: session.userAgent,
    notAfter: session.notAfter,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

/** The domain's Session from its row. */
export function fromSessionRow(row: SessionRow): Session {
  return {
    ...row,
    amr: row.amr.map((entry) => ({ method: entry.method, at: new Date(entry.at) })),
  };
}
