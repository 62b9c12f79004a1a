import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentAuditEntry } from "../present/audit-entry.ts";
import { setPaginationHeaders } from "../present/pagination.ts";
import { queryText } from "../request/envelope.ts";
import { pagination } from "../request/listing.ts";

/** GET /admin/audit: a page of the audit log, newest first, optionally searched. */
export const listAudit = (): Handler<AppEnv> => async (c) => {
  const listed = await c.var.auth.admin.listAudit({ ...pagination(c), query: queryText(c, "query") });
  setPaginationHeaders(c, listed);
  return c.json(listed.entries.map(presentAuditEntry));
};
