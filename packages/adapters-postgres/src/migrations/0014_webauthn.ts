import type { Migration } from "./migration.ts";

// Kept equal to src/schema/webauthn-credentials.ts, webauthn-challenges.ts, mfa-factors.ts and mfa-challenges.ts by
// test/schema-drift.test.ts. Passkeys and the ceremonies begun for them (Supabase Auth's tables), and WebAuthn second
// factors: a factor's credential, and what its challenge expects, as json on GoTrue's columns. A credential id is
// unique among passkeys, and among factors. A challenge's session is no foreign key: a session's deletion (every
// sign-out) need not look here, and a registration is answered on its session, which must still exist to answer.
export const webauthn: Migration = {
  version: "0014_webauthn",
  up: (ns) => `
CREATE TABLE "${ns}webauthn_credentials" (
  "id" uuid NOT NULL,
  "user_id" uuid NOT NULL,
  "credential_id" bytea NOT NULL,
  "public_key" bytea NOT NULL,
  "attestation_type" text NOT NULL,
  "aaguid" uuid,
  "sign_count" bigint NOT NULL,
  "transports" jsonb NOT NULL,
  "backup_eligible" boolean NOT NULL,
  "backed_up" boolean NOT NULL,
  "friendly_name" text,
  "created_at" timestamptz NOT NULL,
  "updated_at" timestamptz NOT NULL,
  "last_used_at" timestamptz,
  CONSTRAINT "${ns}webauthn_credentials_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}webauthn_credentials_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}webauthn_credentials_credential_key" UNIQUE ("credential_id")
);
CREATE INDEX "${ns}webauthn_credentials_user_id_idx" ON "${ns}webauthn_credentials" ("user_id");

CREATE TABLE "${ns}webauthn_challenges" (
  "id" uuid NOT NULL,
  "user_id" uuid,
  "session_id" uuid,
  "ceremony" text NOT NULL,
  "challenge" text NOT NULL,
  "user_verification" text NOT NULL,
  "created_at" timestamptz NOT NULL,
  "expires_at" timestamptz NOT NULL,
  CONSTRAINT "${ns}webauthn_challenges_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}webauthn_challenges_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}webauthn_challenges_ceremony_check" CHECK ("ceremony" IN ('registration', 'authentication'))
);
CREATE INDEX "${ns}webauthn_challenges_expires_at_idx" ON "${ns}webauthn_challenges" ("expires_at");
CREATE INDEX "${ns}webauthn_challenges_user_id_idx" ON "${ns}webauthn_challenges" ("user_id") WHERE "user_id" IS NOT NULL;

ALTER TABLE "${ns}mfa_factors" ADD COLUMN "web_authn_credential" jsonb;
CREATE UNIQUE INDEX "${ns}mfa_factors_webauthn_credential_key" ON "${ns}mfa_factors" (("web_authn_credential" ->> 'credentialId'))
  WHERE "web_authn_credential" IS NOT NULL;

ALTER TABLE "${ns}mfa_challenges" ADD COLUMN "web_authn_session_data" jsonb;
`,
};
