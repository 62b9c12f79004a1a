import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { AUDIT_ACTIONS, type AuditAction, type AuditEntry, auditLogType } from "../../model/audit.ts";
import type { AuditQuery } from "../../ports/stores.ts";
import { readPaging } from "./list-users.ts";

export interface AdminListAuditInput {
  readonly page?: number | undefined;
  readonly perPage?: number | undefined;
  /** GoTrue's `query`: `author:<text>`, `action:<text>` or `type:<text>`, each a case-insensitive substring. */
  readonly query?: string | undefined;
}

export interface AuditPage {
  readonly entries: AuditEntry[];
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
}

/** GET /admin/audit: newest first. */
export async function adminListAudit(deps: Deps, input: AdminListAuditInput): Promise<AuditPage> {
  const { page, perPage } = readPaging(input);
  const { entries, total } = await deps.stores.auditLog.list({ page, perPage, ...readQuery(input.query) });
  return { entries, total, page, perPage };
}

/**
 * Actions and log types are a closed set, so a substring of them is resolved here to the actions it names, and the
 * store only ever matches exact actions (the log type is derived from the action, not stored).
 */
function readQuery(query: string | undefined): Pick<AuditQuery, "author" | "actions"> {
  if (!query) return {};
  const colon = query.indexOf(":");
  if (colon < 0) throw new AuthError("validation_failed", `Invalid query scope: ${query}`);
  const field = query.slice(0, colon);
  const value = query.slice(colon + 1).toLowerCase();
  const matching = (name: (action: AuditAction) => string) =>
    AUDIT_ACTIONS.filter((action) => name(action).includes(value));
  switch (field) {
    case "author":
      return value === "" ? {} : { author: value };
    case "action":
      return { actions: matching((action) => action) };
    case "type":
      return { actions: matching(auditLogType) };
    default:
      throw new AuthError("validation_failed", `Invalid query scope: ${field}`);
  }
}
