import type { Migration } from "./migration.ts";

// Kept equal to src/schema/users.ts and saml-relay-states.ts by test/schema-drift.test.ts. SAML sign-in, as GoTrue
// has it: an SSO user's address is its own only within its provider, so emails are unique among the other users
// alone (GoTrue's users_email_partial_key); phones stay unique among all, and lookups by either address skip SSO
// users. The admin list still finds SSO users by exact email, through a plain index. Relay states are the sign-ins
// sent to identity providers, each taken once at the ACS, going with their provider and removed by age.
export const ssoUsersAndRelayStates: Migration = {
  version: "0020_sso_users_and_relay_states",
  up: (ns) => `
ALTER TABLE "${ns}users" ADD COLUMN "is_sso_user" boolean NOT NULL DEFAULT false;
ALTER TABLE "${ns}users" DROP CONSTRAINT "${ns}users_email_key";
CREATE UNIQUE INDEX "${ns}users_email_partial_key" ON "${ns}users" ("email") WHERE "is_sso_user" = false;
CREATE INDEX "${ns}users_email_idx" ON "${ns}users" ("email");
CREATE TABLE "${ns}saml_relay_states" (
  "id" uuid NOT NULL,
  "sso_provider_id" uuid NOT NULL,
  "request_id" text NOT NULL,
  "redirect_to" text NOT NULL,
  "code_challenge" text,
  "code_challenge_method" text,
  "created_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}saml_relay_states_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}saml_relay_states_provider_id_fkey" FOREIGN KEY ("sso_provider_id")
    REFERENCES "${ns}sso_providers" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}saml_relay_states_created_at_idx" ON "${ns}saml_relay_states" ("created_at");
`,
};
