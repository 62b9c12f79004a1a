import type { AuthMethod, CodeChallengeMethod, ProviderProfile } from "@latchkey/domain";
import { foreignKey, index, jsonb, pgTable, primaryKey, text, unique, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/**
 * `<ns>flow_states`: PKCE authorizations waiting for their code to be exchanged (an OAuth sign-in's with its
 * provider and the provider's tokens, sealed, and a linking flow's identity). The code's digest is unique, so it
 * names one flow; the flows of a deleted user go with it. The provider and link columns come last: later migrations
 * added them, and ADD COLUMN appends.
 */
export function flowStatesTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}flow_states`,
    {
      id: uuid("id").notNull(),
      authCodeHash: text("auth_code_hash").notNull(),
      userId: uuid("user_id").notNull(),
      codeChallenge: text("code_challenge").notNull(),
      codeChallengeMethod: text("code_challenge_method").$type<CodeChallengeMethod>().notNull(),
      authenticationMethod: text("authentication_method").$type<AuthMethod>().notNull(),
      createdAt: timestamptz("created_at").notNull(),
      providerType: text("provider_type"),
      providerAccessToken: text("provider_access_token"),
      providerRefreshToken: text("provider_refresh_token"),
      linkProvider: text("link_provider"),
      linkProfile: jsonb("link_profile").$type<ProviderProfile>(),
    },
    (t) => [
      primaryKey({ name: `${ns}flow_states_pkey`, columns: [t.id] }),
      unique(`${ns}flow_states_auth_code_hash_key`).on(t.authCodeHash),
      foreignKey({ name: `${ns}flow_states_user_id_fkey`, columns: [t.userId], foreignColumns: [users.id] }).onDelete(
        "cascade",
      ),
      index(`${ns}flow_states_user_id_idx`).on(t.userId),
      // The clean-up removes them by age (0017).
      index(`${ns}flow_states_created_at_idx`).on(t.createdAt),
    ],
  );
}

export type FlowStatesTable = ReturnType<typeof flowStatesTable>;
