import type { Metadata } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * Names of the unique constraints a new or changed address can violate: the store maps them to AuthErrors. The
 * email's is a unique index over the users that are no SSO users (0020), which PostgreSQL reports as the constraint.
 */
export function userAddressConstraints(ns: string) {
  return { email: `${ns}users_email_partial_key`, phone: `${ns}users_phone_key` } as const;
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
      // Added by later migrations, so last: ADD COLUMN appends.
      emailChangeConfirmedBy: text("email_change_confirmed_by", { enum: ["current", "new"] }),
      isSsoUser: boolean("is_sso_user").notNull().default(false),
    },
    (t) => [
      primaryKey({ name: `${ns}users_pkey`, columns: [t.id] }),
      // An SSO user's email is its own only within its provider (as GoTrue's users_email_partial_key). Lookups by
      // email say `is_sso_user = false` as a literal, so that the planner sees this index answers them.
      uniqueIndex(userAddressConstraints(ns).email).on(t.email).where(sql`${t.isSsoUser} = false`),
      unique(userAddressConstraints(ns).phone).on(t.phone),
      // The admin list's exact email, which finds SSO users too.
      index(`${ns}users_email_idx`).on(t.email),
      // The admin list's order, both ways.
      index(`${ns}users_created_at_id_idx`).on(t.createdAt, t.id),
      // The clean-up removes anonymous users by age (0017).
      index(`${ns}users_anonymous_created_at_idx`).on(t.createdAt).where(sql`${t.isAnonymous}`),
    ],
  );
}

export type UsersTable = ReturnType<typeof usersTable>;
