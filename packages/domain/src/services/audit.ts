import type { AdminPrincipal, Deps, RequestContext } from "../deps.ts";
import { type AuditAction, type AuditEntry, actorOf } from "../model/audit.ts";
import type { Metadata } from "../model/metadata.ts";
import type { User } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";

/** GoTrue's actor id for a caller that is no user (the service_role key). */
export const NO_USER_ID = "00000000-0000-0000-0000-000000000000";

type Actor = Pick<AuditEntry, "actorId" | "actorUsername" | "actorName">;

/** Something a user did, for the audit log. */
export interface AuditEvent {
  readonly action: AuditAction;
  readonly actor: User;
  readonly context: RequestContext;
  readonly traits?: Metadata;
}

/** Appends an audit entry inside the caller's transaction. */
export function recordAudit(deps: Deps, stores: Stores, event: AuditEvent): Promise<void> {
  return stores.auditLog.append(auditEntry(deps, event));
}

/** The entry for an event, for a store that writes it together with the change it records. */
export function auditEntry(deps: Deps, event: AuditEvent): AuditEntry {
  return entryOf(deps, {
    action: event.action,
    actor: actorOf(event.actor),
    context: event.context,
    traits: event.traits ?? {},
  });
}

/**
 * Appends an entry for something an admin did to a user, as GoTrue writes them: the admin is the actor (a service
 * key by its role), and the traits name the user, who may be gone by the time anyone reads it.
 */
export function recordAdminAudit(
  deps: Deps,
  stores: Stores,
  event: { action: AuditAction; admin: AdminPrincipal; target: User; context: RequestContext; traits?: Metadata },
): Promise<void> {
  const { admin, target } = event;
  const actor = adminActor(admin);
  const traits = {
    user_id: target.id,
    user_email: target.email ?? "",
    user_phone: target.phone ?? "",
    ...event.traits,
  };
  return stores.auditLog.append(entryOf(deps, { action: event.action, actor, context: event.context, traits }));
}

/**
 * Appends an entry for a change an admin made to the server's settings rather than to a user (a custom provider):
 * the admin is the actor, as in recordAdminAudit, and the traits say what changed.
 */
export function recordAdminSettingAudit(
  deps: Deps,
  stores: Stores,
  event: { action: AuditAction; admin: AdminPrincipal; context: RequestContext; traits: Metadata },
): Promise<void> {
  const { action, admin, context, traits } = event;
  return stores.auditLog.append(entryOf(deps, { action, actor: adminActor(admin), context, traits }));
}

/** An admin as the actor of an entry: its user when the token names one, else its role (a service key). */
function adminActor(admin: AdminPrincipal): Actor {
  const username = [admin.claims["phone"], admin.claims["email"]].find(
    (value) => typeof value === "string" && value !== "",
  );
  return {
    actorId: admin.userId ?? NO_USER_ID,
    actorUsername: (username as string | undefined) ?? admin.role,
    actorName: null,
  };
}

/** What an entry records, whoever the actor is. */
interface EntryRequest {
  readonly action: AuditAction;
  readonly actor: Actor;
  readonly context: RequestContext;
  readonly traits: Metadata;
}

function entryOf(deps: Deps, { action, actor, context, traits }: EntryRequest): AuditEntry {
  return {
    id: deps.random.uuid(),
    action,
    ...actor,
    traits,
    ipAddress: context.ip,
    userAgent: context.userAgent,
    createdAt: deps.clock.now(),
  };
}
