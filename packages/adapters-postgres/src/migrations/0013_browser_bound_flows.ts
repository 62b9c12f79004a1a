import type { Migration } from "./migration.ts";

// Kept equal to src/schema/oauth-flows.ts and flow-states.ts by test/schema-drift.test.ts. An OAuth sign-in is bound
// to the browser that went to /authorize (the digest of a cookie's secret), and a linking flow's identity waits
// with its code, to be linked when that code is exchanged.
export const browserBoundFlows: Migration = {
  version: "0013_browser_bound_flows",
  up: (ns) => `
ALTER TABLE "${ns}oauth_flows" ADD COLUMN "browser_binding_hash" text;
ALTER TABLE "${ns}flow_states" ADD COLUMN "link_provider" text;
ALTER TABLE "${ns}flow_states" ADD COLUMN "link_profile" jsonb;
`,
};
