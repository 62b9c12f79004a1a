import type { Migration } from "./migration.ts";

// Kept equal to src/schema/oauth-authorizations.ts, oauth-consents.ts and sessions.ts by test/schema-drift.test.ts.
// The OAuth server's authorization requests and consents, and the client a session is held by, as Supabase Auth's
// tables stand after their later migrations (nonce, sessions.oauth_client_id and sessions.scopes). Departures:
// - a request's id is its `authorization_id` (GoTrue keeps a uuid besides, which nothing reads), and its code is kept
//   as a digest, `code_digest`, where GoTrue keeps the code itself; only approved requests hold one, hence a partial
//   unique index;
// - an exchanged request is kept, status 'exchanged', with the session its code opened (`session_id`, no foreign
//   key: a sign-out need not look here), so that the code presented again ends that session; it goes when it expires;
// - PKCE is S256 only (OAuth 2.1), so `code_challenge` is required and its method always 's256'; GoTrue's
//   `response_type` (always 'code') is left out;
// - a consent's scopes are text[] where GoTrue joins them with spaces, as the clients' lists are here;
// - enums are text with checks, as every other table here has them; GoTrue's length checks are left to the use
//   cases, which bound what they store;
// - the index for expired requests covers every status (an answered request expires too), and a partial index on
//   user_id serves deleting a user; the client keys have none, as a client is never hard-deleted (ON DELETE CASCADE,
//   GoTrue's, never fires);
// - a session's client is read with its user (SessionStore.deleteOfClient): the index is on both, partial.
// Constraint names are shorter than GoTrue's would be, to fit 63 bytes after the longest namespace.
export const oauthAuthorizations: Migration = {
  version: "0016_oauth_authorizations",
  up: (ns) => `
CREATE TABLE "${ns}oauth_authorizations" (
  "id" text NOT NULL,
  "client_id" uuid NOT NULL,
  "user_id" uuid,
  "redirect_uri" text NOT NULL,
  "scope" text NOT NULL,
  "state" text,
  "resource" text,
  "code_challenge" text NOT NULL,
  "code_challenge_method" text NOT NULL,
  "nonce" text,
  "status" text NOT NULL,
  "code_digest" text,
  "session_id" uuid,
  "created_at" timestamptz NOT NULL,
  "expires_at" timestamptz NOT NULL,
  "approved_at" timestamptz,
  CONSTRAINT "${ns}oauth_authorizations_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}oauth_authorizations_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "${ns}oauth_clients" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}oauth_authorizations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}oauth_authorizations_method_check" CHECK ("code_challenge_method" = 's256'),
  CONSTRAINT "${ns}oauth_authorizations_status_check" CHECK ("status" IN ('pending', 'approved', 'denied', 'expired', 'exchanged'))
);
CREATE UNIQUE INDEX "${ns}oauth_authorizations_code_key" ON "${ns}oauth_authorizations" ("code_digest")
  WHERE "code_digest" IS NOT NULL;
CREATE INDEX "${ns}oauth_authorizations_expires_at_idx" ON "${ns}oauth_authorizations" ("expires_at");
CREATE INDEX "${ns}oauth_authorizations_user_id_idx" ON "${ns}oauth_authorizations" ("user_id")
  WHERE "user_id" IS NOT NULL;

CREATE TABLE "${ns}oauth_consents" (
  "id" uuid NOT NULL,
  "user_id" uuid NOT NULL,
  "client_id" uuid NOT NULL,
  "scopes" text[] NOT NULL,
  "granted_at" timestamptz NOT NULL,
  "revoked_at" timestamptz,
  CONSTRAINT "${ns}oauth_consents_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "${ns}oauth_consents_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "${ns}users" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}oauth_consents_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "${ns}oauth_clients" ("id") ON DELETE CASCADE,
  CONSTRAINT "${ns}oauth_consents_user_client_key" UNIQUE ("user_id", "client_id")
);

ALTER TABLE "${ns}sessions" ADD COLUMN "oauth_client_id" uuid,
  ADD COLUMN "scopes" text,
  ADD CONSTRAINT "${ns}sessions_oauth_client_id_fkey" FOREIGN KEY ("oauth_client_id") REFERENCES "${ns}oauth_clients" ("id") ON DELETE CASCADE;
CREATE INDEX "${ns}sessions_oauth_client_idx" ON "${ns}sessions" ("user_id", "oauth_client_id")
  WHERE "oauth_client_id" IS NOT NULL;
`,
};
