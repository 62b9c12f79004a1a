import type { CodeChallengeMethod } from "@latchkey/domain";
import { foreignKey, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { SsoProvidersTable } from "./sso-providers.ts";

/**
 * `<ns>saml_relay_states`: SAML sign-ins sent to identity providers (SamlRelayState), each taken once at the ACS,
 * going with their provider (0020_sso_users_and_relay_states.ts).
 */
export function samlRelayStatesTable(ns: string, providers: SsoProvidersTable) {
  return pgTable(
    `${ns}saml_relay_states`,
    {
      id: uuid("id").notNull(),
      ssoProviderId: uuid("sso_provider_id").notNull(),
      requestId: text("request_id").notNull(),
      redirectTo: text("redirect_to").notNull(),
      codeChallenge: text("code_challenge"),
      codeChallengeMethod: text("code_challenge_method").$type<CodeChallengeMethod>(),
      createdAt: timestamptz("created_at").notNull(),
    },
    (t) => [
      primaryKey({ name: `${ns}saml_relay_states_pkey`, columns: [t.id] }),
      // No index on the provider: its rows live minutes, and deleting a provider, which scans them, is rare. The
      // name leaves out `sso_`, to fit 63 bytes with the longest namespace.
      foreignKey({
        name: `${ns}saml_relay_states_provider_id_fkey`,
        columns: [t.ssoProviderId],
        foreignColumns: [providers.id],
      }).onDelete("cascade"),
      // Abandoned sign-ins are removed by age.
      index(`${ns}saml_relay_states_created_at_idx`).on(t.createdAt),
    ],
  );
}
