import type { CodeChallengeMethod } from "@latchkey/domain";
import { foreignKey, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/**
 * `<ns>oauth_flows`: sign-ins at external providers between /authorize and /callback, each taken once. A flow for
 * an invited or a linking user goes with that user. The browser binding's column comes last: a later migration
 * added it, and ADD COLUMN appends.
 */
export function oauthFlowsTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}oauth_flows`,
    {
      id: uuid("id").notNull(),
      provider: text("provider").notNull(),
      redirectTo: text("redirect_to").notNull(),
      codeChallenge: text("code_challenge"),
      codeChallengeMethod: text("code_challenge_method").$type<CodeChallengeMethod>(),
      inviteUserId: uuid("invite_user_id"),
      linkingTargetId: uuid("linking_target_id"),
      sealedSecret: text("sealed_secret"),
      createdAt: timestamptz("created_at").notNull(),
      browserBindingHash: text("browser_binding_hash"),
    },
    (t) => [
      primaryKey({ name: `${ns}oauth_flows_pkey`, columns: [t.id] }),
      foreignKey({
        name: `${ns}oauth_flows_invite_user_id_fkey`,
        columns: [t.inviteUserId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      foreignKey({
        name: `${ns}oauth_flows_linking_target_id_fkey`,
        columns: [t.linkingTargetId],
        foreignColumns: [users.id],
      }).onDelete("cascade"),
      // Abandoned flows are removed by age.
      index(`${ns}oauth_flows_created_at_idx`).on(t.createdAt),
    ],
  );
}
