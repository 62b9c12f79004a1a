import type { Migration } from "./migration.ts";

// Kept equal to src/schema/oauth-flows.ts, flow-states.ts and identities.ts by test/schema-drift.test.ts. OAuth
// sign-in: the flows between /authorize and /callback; the provider and its tokens on a PKCE code (sealed); and
// identities found by their email, for linking a provider sign-in to the account that holds its address.
export const oauth: Migration = {
  version: "0009_oauth",
  up: (ns) => `
CREATE TABLE "${ns}oauth_flows" (
  "id" uuid NOT NULL,
  "provider" text NOT NULL,
  "redirect_to" text NOT NULL,
  "code_challenge" text,
  "code_challenge_method" text,
  "invite_user_id" uuid,
  "linking_target_id" uuid,
  "sealed_secret" text,
  "created_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}oauth_flows_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}oauth_flows_invite_user_id_fkey" FOREIGN KEY ("invite_user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}oauth_flows_linking_target_id_fkey" FOREIGN KEY ("linking_target_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}oauth_flows_created_at_idx" ON "${ns}oauth_flows" ("created_at");

ALTER TABLE "${ns}flow_states"
  ADD COLUMN "provider_type" text,
  ADD COLUMN "provider_access_token" text,
  ADD COLUMN "provider_refresh_token" text;

CREATE INDEX "${ns}identities_email_idx" ON "${ns}identities" (lower("identity_data" ->> 'email'));
`,
};
