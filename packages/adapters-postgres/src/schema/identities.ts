import type { Metadata } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { foreignKey, index, jsonb, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/** The unique constraint of (provider, provider_id): the store maps its violation to an AuthError. */
export const identityKeyConstraint = (ns: string) => `${ns}identities_provider_provider_id_key`;

/** `<ns>identities`: a user's sign-in methods, one per (provider, provider_id). */
export function identitiesTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}identities`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id").notNull(),
      provider: text("provider").notNull(),
      providerId: text("provider_id").notNull(),
      identityData: jsonb("identity_data").$type<Metadata>().notNull(),
      lastSignInAt: timestamptz("last_sign_in_at"),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}identities_pkey`, columns: [t.id] }),
      unique(identityKeyConstraint(ns)).on(t.provider, t.providerId),
      foreignKey({ name: `${ns}identities_user_id_fkey`, columns: [t.userId], foreignColumns: [users.id] }).onDelete(
        "cascade",
      ),
      index(`${ns}identities_user_id_idx`).on(t.userId),
      // Linking a provider sign-in to the account that holds its verified address (IdentityStore.findByEmails).
      index(`${ns}identities_email_idx`).on(sql`lower(${t.identityData} ->> 'email')`),
    ],
  );
}

export type IdentitiesTable = ReturnType<typeof identitiesTable>;
