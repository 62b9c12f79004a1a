import type { CodeChallengeMethod, Metadata, OneTimeTokenKind } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { foreignKey, index, integer, jsonb, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { IdentitiesTable } from "./identities.ts";
import type { UsersTable } from "./users.ts";

/**
 * `<ns>one_time_tokens`: at most one pending token per (user, kind). The code challenge, password, metadata and
 * identity columns come last: later migrations added them, and ADD COLUMN appends.
 */
export function oneTimeTokensTable(ns: string, users: UsersTable, identities: IdentitiesTable) {
  return pgTable(
    `${ns}one_time_tokens`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id").notNull(),
      kind: text("kind").$type<OneTimeTokenKind>().notNull(),
      relatesTo: text("relates_to").notNull(),
      linkTokenHash: text("link_token_hash"),
      otpHash: text("otp_hash").notNull(),
      failedAttempts: integer("failed_attempts").notNull(),
      createdAt: timestamptz("created_at").notNull(),
      codeChallenge: text("code_challenge"),
      codeChallengeMethod: text("code_challenge_method").$type<CodeChallengeMethod>(),
      passwordHash: text("password_hash"),
      userMetadata: jsonb("user_metadata").$type<Metadata>(),
      identityId: uuid("identity_id"),
    },
    (t) => [
      primaryKey({ name: `${ns}one_time_tokens_pkey`, columns: [t.id] }),
      unique(`${ns}one_time_tokens_user_id_kind_key`).on(t.userId, t.kind),
      foreignKey({
        name: `${ns}one_time_tokens_user_id_fkey`,
        columns: [t.userId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      // A provider identity a confirmation carries leaves it when the identity goes (its sign-in chose it).
      foreignKey({
        name: `${ns}one_time_tokens_identity_id_fkey`,
        columns: [t.identityId],
        foreignColumns: [identities.id],
      }).onDelete("set null"),
      index(`${ns}one_time_tokens_link_token_hash_idx`).on(t.linkTokenHash),
      // Pending tokens are also looked up by the address they were sent to.
      index(`${ns}one_time_tokens_relates_to_idx`).on(t.relatesTo),
      // For the foreign key: deleting an identity finds the few tokens that carry one without reading them all.
      index(`${ns}one_time_tokens_identity_id_idx`).on(t.identityId).where(sql`${t.identityId} is not null`),
      // The clean-up removes them by age (0017).
      index(`${ns}one_time_tokens_created_at_idx`).on(t.createdAt),
    ],
  );
}

export type OneTimeTokensTable = ReturnType<typeof oneTimeTokensTable>;
