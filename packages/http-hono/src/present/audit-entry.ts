import { type AuditEntry, auditLogType, timestamp } from "@latchkey/domain";

/** GoTrue's audit log entry: the event in `payload`, as its audit_log_entries rows hold it. */
export function presentAuditEntry(entry: AuditEntry) {
  return {
    id: entry.id,
    payload: {
      actor_id: entry.actorId,
      actor_via_sso: false,
      actor_username: entry.actorUsername,
      ...(entry.actorName ? { actor_name: entry.actorName } : {}),
      action: entry.action,
      log_type: auditLogType(entry.action),
      ...(Object.keys(entry.traits).length > 0 ? { traits: entry.traits } : {}),
    },
    created_at: timestamp(entry.createdAt),
    ip_address: entry.ipAddress ?? "",
  };
}
