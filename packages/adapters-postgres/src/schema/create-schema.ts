import { validateNamespace } from "../namespace.ts";
import { auditLogEntriesTable } from "./audit-log-entries.ts";
import { cleanupMarksTable } from "./cleanup-marks.ts";
import { customProvidersTable } from "./custom-providers.ts";
import { flowStatesTable } from "./flow-states.ts";
import { identitiesTable } from "./identities.ts";
import { mfaChallengesTable } from "./mfa-challenges.ts";
import { mfaFactorsTable } from "./mfa-factors.ts";
import { oauthAuthorizationsTable } from "./oauth-authorizations.ts";
import { oauthClientsTable } from "./oauth-clients.ts";
import { oauthConsentsTable } from "./oauth-consents.ts";
import { oauthFlowsTable } from "./oauth-flows.ts";
import { oneTimeTokensTable } from "./one-time-tokens.ts";
import { outboxTable } from "./outbox.ts";
import { refreshTokensTable } from "./refresh-tokens.ts";
import { samlRelayStatesTable } from "./saml-relay-states.ts";
import { schemaMigrationsTable } from "./schema-migrations.ts";
import { sessionsTable } from "./sessions.ts";
import { ssoDomainsTable, ssoProvidersTable } from "./sso-providers.ts";
import { usedIdTokensTable } from "./used-id-tokens.ts";
import { usersTable } from "./users.ts";
import { webauthnChallengesTable } from "./webauthn-challenges.ts";
import { webauthnCredentialsTable } from "./webauthn-credentials.ts";

/**
 * The tables, with `namespace` (DB_NAMESPACE) prefixed to every table, index and constraint name. Throws when the
 * namespace is not a plain identifier, before it can reach any SQL.
 */
export function createSchema(namespace: string) {
  const ns = validateNamespace(namespace);
  const users = usersTable(ns);
  const oauthClients = oauthClientsTable(ns);
  const sessions = sessionsTable(ns, users, oauthClients);
  const mfaFactors = mfaFactorsTable(ns, users);
  const identities = identitiesTable(ns, users);
  const ssoProviders = ssoProvidersTable(ns);
  return {
    namespace: ns,
    users,
    identities,
    mfaFactors,
    mfaChallenges: mfaChallengesTable(ns, mfaFactors),
    webauthnCredentials: webauthnCredentialsTable(ns, users),
    webauthnChallenges: webauthnChallengesTable(ns, users),
    oauthClients,
    oauthAuthorizations: oauthAuthorizationsTable(ns, users, oauthClients),
    oauthConsents: oauthConsentsTable(ns, users, oauthClients),
    sessions,
    refreshTokens: refreshTokensTable(ns, sessions),
    oneTimeTokens: oneTimeTokensTable(ns, users, identities),
    auditLogEntries: auditLogEntriesTable(ns),
    outbox: outboxTable(ns),
    flowStates: flowStatesTable(ns, users),
    oauthFlows: oauthFlowsTable(ns, users),
    usedIdTokens: usedIdTokensTable(ns),
    cleanupMarks: cleanupMarksTable(ns),
    ssoProviders,
    ssoDomains: ssoDomainsTable(ns, ssoProviders),
    samlRelayStates: samlRelayStatesTable(ns, ssoProviders),
    customProviders: customProvidersTable(ns),
    schemaMigrations: schemaMigrationsTable(ns),
  };
}

export type Schema = ReturnType<typeof createSchema>;

/** Every table of the schema, parents before children (the order to create them in). */
export function tablesOf(schema: Schema) {
  return [
    schema.users,
    schema.identities,
    schema.mfaFactors,
    schema.mfaChallenges,
    schema.webauthnCredentials,
    schema.webauthnChallenges,
    schema.oauthClients,
    schema.oauthAuthorizations,
    schema.oauthConsents,
    schema.sessions,
    schema.refreshTokens,
    schema.oneTimeTokens,
    schema.auditLogEntries,
    schema.outbox,
    schema.flowStates,
    schema.oauthFlows,
    schema.usedIdTokens,
    schema.cleanupMarks,
    schema.ssoProviders,
    schema.ssoDomains,
    schema.samlRelayStates,
    schema.customProviders,
    schema.schemaMigrations,
  ] as const;
}
