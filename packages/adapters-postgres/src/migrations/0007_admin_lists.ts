import type { Migration } from "./migration.ts";

// Kept equal to src/schema/users.ts by test/schema-drift.test.ts. The admin user list pages by (created_at, id),
// in either direction: without this index every page would sort the whole table.
export const adminLists: Migration = {
  version: "0007_admin_lists",
  up: (ns) => `
CREATE INDEX "${ns}users_created_at_id_idx" ON "${ns}users" ("created_at", "id");
`,
};
