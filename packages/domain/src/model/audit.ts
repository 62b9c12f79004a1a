import type { Metadata } from "./metadata.ts";
import type { User } from "./user.ts";

/** What happened, in GoTrue's words (the `action` of its audit_log_entries). */
export const AUDIT_ACTIONS = [
  "login",
  "logout",
  "invite_accepted",
  "user_signedup",
  "user_invited",
  "user_deleted",
  "user_recovery_requested",
  "user_reauthenticate_requested",
  "user_confirmation_requested",
  "user_repeated_signup",
  "user_modified",
  "user_updated_password",
  "token_refreshed",
  "token_revoked",
  "identity_linked",
  "identity_unlinked",
  "factor_in_progress",
  "factor_unenrolled",
  "challenge_created",
  "verification_attempted",
  "factor_deleted",
  "factor_updated",
  "passkey_created",
  "passkey_updated",
  "passkey_deleted",
  // Latchkey's own: an admin added, changed or removed a custom OAuth/OIDC provider (GoTrue records none).
  "custom_provider_created",
  "custom_provider_updated",
  "custom_provider_deleted",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One security event, written in the same transaction as the change it records. */
export interface AuditEntry {
  readonly id: string;
  readonly action: AuditAction;
  /** The user who acted, or whom the event concerns. Kept after the user is deleted. */
  readonly actorId: string;
  /** The actor's phone, else email, as it was at the time (GoTrue's `actor_username`). */
  readonly actorUsername: string;
  /** user_metadata.full_name at the time, when set (GoTrue's `actor_name`). */
  readonly actorName: string | null;
  /** Details of the event, e.g. `{ provider: "email" }`. */
  readonly traits: Metadata;
  readonly ipAddress: string | null;
  readonly userAgent: string | null;
  readonly createdAt: Date;
}

/** GoTrue's grouping of actions, derived rather than stored. */
export function auditLogType(action: AuditAction): "account" | "team" | "token" | "user" | "factor" {
  switch (action) {
    case "login":
    case "logout":
    case "invite_accepted":
      return "account";
    case "user_signedup":
    case "user_invited":
    case "user_deleted":
      return "team";
    case "token_refreshed":
    case "token_revoked":
      return "token";
    case "factor_in_progress":
    case "factor_unenrolled":
    case "challenge_created":
    case "verification_attempted":
    case "factor_deleted":
    case "factor_updated":
      return "factor";
    default:
      return "user";
  }
}

export function actorOf(user: User): Pick<AuditEntry, "actorId" | "actorUsername" | "actorName"> {
  const fullName = user.userMetadata["full_name"];
  return {
    actorId: user.id,
    actorUsername: user.phone ?? user.email ?? "",
    actorName: typeof fullName === "string" ? fullName : null,
  };
}
