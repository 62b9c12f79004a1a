import {
  bigint,
  boolean,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { bytea } from "./bytea.ts";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/** Name of the unique constraint a passkey can violate: the store maps it to an AuthError. */
export const webauthnCredentialConstraint = (ns: string) => `${ns}webauthn_credentials_credential_key`;

/**
 * `<ns>webauthn_credentials`: users' passkeys (Supabase Auth's table). The credential id and public key are the
 * bytes the authenticator gave (the domain spells them base64url); a credential id is registered once, whoever's.
 */
export function webauthnCredentialsTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}webauthn_credentials`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id").notNull(),
      credentialId: bytea("credential_id").notNull(),
      publicKey: bytea("public_key").notNull(),
      attestationType: text("attestation_type").notNull(),
      aaguid: uuid("aaguid"),
      signCount: bigint("sign_count", { mode: "number" }).notNull(),
      transports: jsonb("transports").$type<readonly string[]>().notNull(),
      backupEligible: boolean("backup_eligible").notNull(),
      backedUp: boolean("backed_up").notNull(),
      friendlyName: text("friendly_name"),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
      lastUsedAt: timestamptz("last_used_at"),
    },
    (t) => [
      primaryKey({ name: `${ns}webauthn_credentials_pkey`, columns: [t.id] }),
      foreignKey({
        name: `${ns}webauthn_credentials_user_id_fkey`,
        columns: [t.userId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      // A sign-in finds its passkey by the credential id the authenticator names.
      unique(webauthnCredentialConstraint(ns)).on(t.credentialId),
      // A user's passkeys are listed, and go with the user.
      index(`${ns}webauthn_credentials_user_id_idx`).on(t.userId),
    ],
  );
}

export type WebAuthnCredentialsTable = ReturnType<typeof webauthnCredentialsTable>;
