import { type Session, timestamp } from "@latchkey/domain";

/**
 * A session as Latchkey's own GET /admin/users/<id>/sessions lists it (GoTrue has no such endpoint): the columns of
 * its sessions table an admin console shows, timestamps as ISO strings and null when unset. `refreshed_at` is the
 * last refresh (the last rotation of its refresh token).
 */
export function presentAdminSession(session: Session) {
  return {
    id: session.id,
    user_id: session.userId,
    created_at: timestamp(session.createdAt),
    updated_at: timestamp(session.updatedAt),
    refreshed_at: session.rotatedAt === null ? null : timestamp(session.rotatedAt),
    not_after: session.notAfter === null ? null : timestamp(session.notAfter),
    aal: session.aal,
    factor_id: session.factorId,
    user_agent: session.userAgent,
    ip: session.ip,
  };
}
