import { AUDIT_ACTIONS, type AuditEntry, isUuid } from "@latchkey/domain";
import type { GotrueRow } from "./gotrue-source.ts";
import { dateOf, objectOf } from "./row-values.ts";

const ACTIONS: ReadonlySet<string> = new Set(AUDIT_ACTIONS);

/**
 * GoTrue's audit entries (a JSON payload: action, actor_id, actor_username, actor_name, traits) as Latchkey's.
 * Entries of actions Latchkey has no word for (SSO, OAuth server, …) or without an actor are counted, not kept.
 */
export function mapAuditEntries(rows: readonly GotrueRow[]): { entries: AuditEntry[]; left: number } {
  const entries: AuditEntry[] = [];
  for (const row of rows) {
    const payload = objectOf(row["payload"]);
    const action = String(payload["action"] ?? "");
    const actorId = payload["actor_id"];
    const createdAt = dateOf(row["created_at"]);
    if (!ACTIONS.has(action) || !isUuid(actorId) || !isUuid(row["id"]) || createdAt === null) continue;
    const traits = payload["traits"];
    const ip = typeof row["ip_address"] === "string" && row["ip_address"] !== "" ? row["ip_address"] : null;
    entries.push({
      id: row["id"],
      action: action as AuditEntry["action"],
      actorId,
      actorUsername: typeof payload["actor_username"] === "string" ? payload["actor_username"] : "",
      actorName:
        typeof payload["actor_name"] === "string" && payload["actor_name"] !== "" ? payload["actor_name"] : null,
      traits:
        traits !== null && typeof traits === "object" && !Array.isArray(traits) ? (traits as AuditEntry["traits"]) : {},
      ipAddress: ip,
      userAgent: null,
      createdAt,
    });
  }
  return { entries, left: rows.length - entries.length };
}
