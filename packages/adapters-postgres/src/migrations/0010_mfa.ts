import type { Migration } from "./migration.ts";

// Kept equal to src/schema/mfa-factors.ts, mfa-challenges.ts and sessions.ts by test/schema-drift.test.ts. Second
// factors and their challenges (GoTrue's tables), and the factor that took a session to aal2. The audit log needs
// nothing: its action is plain text, so the new factor actions are stored as they come.
export const mfa: Migration = {
  version: "0010_mfa",
  up: (ns) => `
CREATE TABLE "${ns}mfa_factors" (
  "id" uuid NOT NULL,
  "user_id" uuid NOT NULL,
  "friendly_name" text,
  "factor_type" text NOT NULL,
  "status" text NOT NULL,
  "secret" text,
  "phone" text,
  "last_totp_step" bigint,
  "last_challenged_at" timestamptz,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}mfa_factors_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}mfa_factors_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}mfa_factors_user_id_idx" ON "${ns}mfa_factors" ("user_id");
CREATE UNIQUE INDEX "${ns}mfa_factors_user_friendly_name_key" ON "${ns}mfa_factors" ("user_id", trim("friendly_name"))
  WHERE trim("friendly_name") <> '';
CREATE UNIQUE INDEX "${ns}mfa_factors_user_verified_phone_key" ON "${ns}mfa_factors" ("user_id", "phone")
  WHERE "status" = 'verified' AND "phone" IS NOT NULL;

CREATE TABLE "${ns}mfa_challenges" (
  "id" uuid NOT NULL,
  "factor_id" uuid NOT NULL,
  "ip_address" text,
  "otp_code" text,
  "created_at" timestamptz NOT NULL,
  "verified_at" timestamptz,
  CONSTRAINT "${ns}mfa_challenges_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}mfa_challenges_factor_id_fkey" FOREIGN KEY ("factor_id") REFERENCES "${ns}mfa_factors" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}mfa_challenges_factor_id_idx" ON "${ns}mfa_challenges" ("factor_id");

ALTER TABLE "${ns}sessions" ADD COLUMN "factor_id" uuid;
`,
};
