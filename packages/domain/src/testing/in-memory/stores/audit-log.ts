import type { AuditLogStore } from "../../../ports/stores.ts";
import { contains, copy, type State } from "./state.ts";

export const inMemoryAuditLog = (state: State): AuditLogStore => ({
  async append(entry) {
    state.auditLog.push(copy(entry));
  },
  async list({ page, perPage, author, actions }) {
    // Entries of one transaction share their time: insertion order breaks the tie, as in the database.
    const newestFirst = state.auditLog
      .map((entry, position) => ({ entry, position }))
      .filter(
        ({ entry }) =>
          (!author || contains(entry.actorUsername, author) || contains(entry.actorName, author)) &&
          (actions === undefined || actions.includes(entry.action)),
      )
      .sort((a, b) => b.entry.createdAt.getTime() - a.entry.createdAt.getTime() || b.position - a.position)
      .map(({ entry }) => entry);
    return { entries: newestFirst.slice((page - 1) * perPage, page * perPage).map(copy), total: newestFirst.length };
  },
});
