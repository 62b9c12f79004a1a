import { AuthError } from "@latchkey/domain";
import type { Context } from "hono";
import { queryText } from "./envelope.ts";

/** `page` and `per_page`: whole numbers, or empty for the default (GoTrue's reading). */
export function pagination(c: Context): { page: number | undefined; perPage: number | undefined } {
  const read = (name: string) => {
    const raw = queryText(c, name);
    if (raw === undefined || raw === "") return undefined;
    if (!/^\d{1,9}$/.test(raw)) throw new AuthError("validation_failed", "Bad Pagination Parameters");
    return Number(raw);
  };
  return { page: read("page"), perPage: read("per_page") };
}

/** `sort=created_at asc|desc`: creation time is the only order GoTrue offers. */
export function sortOrder(c: Context): "asc" | "desc" | undefined {
  const raw = queryText(c, "sort");
  if (!raw) return undefined;
  const [field, direction = "desc", ...rest] = raw.trim().split(/\s+/);
  if (field !== "created_at" || rest.length > 0 || (direction !== "asc" && direction !== "desc")) {
    throw new AuthError("validation_failed", `bad sort field ${JSON.stringify(raw)}`);
  }
  return direction;
}
