import type { Metadata } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/** Names of the unique constraints a new or changed address can violate: the store maps them to AuthErrors. */
export function userAddressConstraints(ns: string) {
  return { email: `${ns}users_email_key`, phone: `${ns}users_phone_key` } as const;
}

/** `<ns>users`: one row per user, one column per field of the domain's User except its identities. */
export function usersTable(ns: string) {
  return pgTable(
    `${ns}users`,
    {
      id: uuid("id").notNull(),
      aud: text("aud").notNull(),
      role: text("role").notNull(),
      email: text("email"),
      phone: text("phone"),
      passwordHash: text("password_hash"),
      emailConfirmedAt: timestamptz("email_confirmed_at"),
      phoneConfirmedAt: timestamptz("phone_confirmed_at"),
      invitedAt: timestamptz("invited_at"),
      confirmationSentAt: timestamptz("confirmation_sent_at"),
      recoverySentAt: timestamptz("recovery_sent_at"),
      newEmail: text("new_email"),
      emailChangeSentAt: timestamptz("email_change_sent_at"),
      newPhone: text("new_phone"),
      phoneChangeSentAt: timestamptz("phone_change_sent_at"),
      reauthenticationSentAt: timestamptz("reauthentication_sent_at"),
      lastSignInAt: timestamptz("last_sign_in_at"),
      appMetadata: jsonb("app_metadata").$type<Metadata>().notNull(),
      userMetadata: jsonb("user_metadata").$type<Metadata>().notNull(),
      bannedUntil: timestamptz("banned_until"),
      isAnonymous: boolean("is_anonymous").notNull(),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
      deletedAt: timestamptz("deleted_at"),
      // Added by a later migration, so last: ADD COLUMN appends.
      emailChangeConfirmedBy: text("email_change_confirmed_by", { enum: ["current", "new"] }),
    },
    (t) => [
      primaryKey({ name: `${ns}users_pkey`, columns: [t.id] }),
      unique(userAddressConstraints(ns).email).on(t.email),
      unique(userAddressConstraints(ns).phone).on(t.phone),
      // The admin list's order, both ways.
      index(`${ns}users_created_at_id_idx`).on(t.createdAt, t.id),
      // The clean-up removes anonymous users by age (0017).
      index(`${ns}users_anonymous_created_at_idx`).on(t.createdAt).where(sql`${t.isAnonymous}`),
    ],
  );
}

export type UsersTable = ReturnType<typeof usersTable>;
