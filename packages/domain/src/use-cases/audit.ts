import { actorOf, type AuditAction, type AuditEntry } from "../model/audit.ts";
import type { Metadata } from "../model/metadata.ts";
import type { User } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";
import type { Deps, RequestContext } from "./deps.ts";

/** Appends an audit entry inside the caller's transaction. */
export function recordAudit(
  deps: Deps,
  stores: Stores,
  event: { action: AuditAction; actor: User; context: RequestContext; traits?: Metadata },
): Promise<void> {
  const entry: AuditEntry = {
    id: deps.random.uuid(),
    action: event.action,
    ...actorOf(event.actor),
    traits: event.traits ?? {},
    ipAddress: event.context.ip,
    userAgent: event.context.userAgent,
    createdAt: deps.clock.now(),
  };
  return stores.auditLog.append(entry);
}
