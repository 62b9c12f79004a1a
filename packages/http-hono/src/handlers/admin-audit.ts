import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentAuditEntry } from "../present/audit-entry.ts";
import { setPaginationHeaders } from "../present/pagination.ts";
import { queryText } from "../request/envelope.ts";
import { pagination } from "../request/listing.ts";
import type { HandlerDeps } from "./deps.ts";

/** GET /admin/audit: a page of the audit log, newest first, optionally searched. */
export const listAudit =
  ({ auth }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const listed = await auth.admin.listAudit({ ...pagination(c), query: queryText(c, "query") });
    setPaginationHeaders(c, listed);
    return c.json(listed.entries.map(presentAuditEntry));
  };
