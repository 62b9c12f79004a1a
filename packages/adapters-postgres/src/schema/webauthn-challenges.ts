import type { PasskeyCeremony, UserVerification } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { check, foreignKey, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/**
 * `<ns>webauthn_challenges`: passkey ceremonies begun, each taken once (Supabase Auth's table). A registration's is
 * bound to its user, and goes with it; a sign-in's to no one. `session_id` is no foreign key (see 0014_webauthn.ts).
 */
export function webauthnChallengesTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}webauthn_challenges`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id"),
      sessionId: uuid("session_id"),
      ceremony: text("ceremony").$type<PasskeyCeremony>().notNull(),
      challenge: text("challenge").notNull(),
      userVerification: text("user_verification").$type<UserVerification>().notNull(),
      createdAt: timestamptz("created_at").notNull(),
      expiresAt: timestamptz("expires_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}webauthn_challenges_pkey`, columns: [t.id] }),
      foreignKey({
        name: `${ns}webauthn_challenges_user_id_fkey`,
        columns: [t.userId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      check(`${ns}webauthn_challenges_ceremony_check`, sql`${t.ceremony} in ('registration', 'authentication')`),
      // Expired ones are removed by time.
      index(`${ns}webauthn_challenges_expires_at_idx`).on(t.expiresAt),
      // So that deleting a user finds its challenges without a scan; sign-ins' (no user) are left out.
      index(`${ns}webauthn_challenges_user_id_idx`).on(t.userId).where(sql`${t.userId} is not null`),
    ],
  );
}

export type WebAuthnChallengesTable = ReturnType<typeof webauthnChallengesTable>;
