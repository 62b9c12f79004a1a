import type { Migration } from "./migration.ts";

// Written by hand rather than generated, and kept equal to src/schema by test/schema-drift.test.ts.
export const initial: Migration = {
  version: "0001_initial",
  up: (ns) => `
CREATE TABLE "${ns}users" (
  "id" uuid NOT NULL,
  "aud" text NOT NULL,
  "role" text NOT NULL,
  "email" text,
  "phone" text,
  "password_hash" text,
  "email_confirmed_at" timestamptz,
  "phone_confirmed_at" timestamptz,
  "invited_at" timestamptz,
  "confirmation_sent_at" timestamptz,
  "recovery_sent_at" timestamptz,
  "new_email" text,
  "email_change_sent_at" timestamptz,
  "new_phone" text,
  "phone_change_sent_at" timestamptz,
  "reauthentication_sent_at" timestamptz,
  "last_sign_in_at" timestamptz,
  "app_metadata" jsonb NOT NULL,
  "user_metadata" jsonb NOT NULL,
  "banned_until" timestamptz,
  "is_anonymous" boolean NOT NULL,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  "deleted_at" timestamptz,
  CONSTRAINT "${ns}users_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}users_email_key" UNIQUE ("email"),
  CONSTRAINT "${ns}users_phone_key" UNIQUE ("phone")
);

CREATE TABLE "${ns}identities" (
  "id" uuid NOT NULL,
  "user_id" uuid NOT NULL,
  "provider" text NOT NULL,
  "provider_id" text NOT NULL,
  "identity_data" jsonb NOT NULL,
  "last_sign_in_at" timestamptz,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}identities_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}identities_provider_provider_id_key" UNIQUE ("provider", "provider_id"),
  CONSTRAINT "${ns}identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}identities_user_id_idx" ON "${ns}identities" ("user_id");

CREATE TABLE "${ns}sessions" (
  "id" uuid NOT NULL,
  "user_id" uuid NOT NULL,
  "aal" text NOT NULL,
  "amr" jsonb NOT NULL,
  "refresh_token_id" uuid,
  "previous_refresh_token_id" uuid,
  "rotated_at" timestamptz,
  "ip" text,
  "user_agent" text,
  "not_after" timestamptz,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}sessions_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}sessions_user_id_idx" ON "${ns}sessions" ("user_id");

CREATE TABLE "${ns}refresh_tokens" (
  "id" uuid NOT NULL,
  "session_id" uuid NOT NULL,
  "parent_id" uuid,
  "token_hash" text NOT NULL,
  "created_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}refresh_tokens_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}refresh_tokens_token_hash_key" UNIQUE ("token_hash"),
  CONSTRAINT "${ns}refresh_tokens_parent_id_key" UNIQUE ("parent_id"),
  CONSTRAINT "${ns}refresh_tokens_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "${ns}sessions" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}refresh_tokens_session_id_idx" ON "${ns}refresh_tokens" ("session_id");

CREATE TABLE "${ns}one_time_tokens" (
  "id" uuid NOT NULL,
  "user_id" uuid NOT NULL,
  "kind" text NOT NULL,
  "relates_to" text NOT NULL,
  "link_token_hash" text,
  "otp_hash" text NOT NULL,
  "failed_attempts" integer NOT NULL,
  "created_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}one_time_tokens_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}one_time_tokens_user_id_kind_key" UNIQUE ("user_id", "kind"),
  CONSTRAINT "${ns}one_time_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE
);
CREATE INDEX "${ns}one_time_tokens_link_token_hash_idx" ON "${ns}one_time_tokens" ("link_token_hash");
`,
};
