import { initial } from "./0001_initial.ts";
import { auditLog } from "./0002_audit_log.ts";
import { outbox } from "./0003_outbox.ts";
import { pkce } from "./0004_pkce.ts";
import { tokenPassword } from "./0005_token_password.ts";
import { outboxClaim } from "./0006_outbox_claim.ts";
import { adminLists } from "./0007_admin_lists.ts";
import { provenChoices } from "./0008_proven_choices.ts";
import { oauth } from "./0009_oauth.ts";
import { mfa } from "./0010_mfa.ts";
import { tokenIdentity } from "./0011_token_identity.ts";
import { usedIdTokens } from "./0012_used_id_tokens.ts";
import { browserBoundFlows } from "./0013_browser_bound_flows.ts";
import { webauthn } from "./0014_webauthn.ts";
import { oauthClients } from "./0015_oauth_clients.ts";
import { oauthAuthorizations } from "./0016_oauth_authorizations.ts";
import { cleanupIndexes } from "./0017_cleanup_indexes.ts";
import { cleanupMarks } from "./0018_cleanup_marks.ts";
import { ssoProviders } from "./0019_sso_providers.ts";
import { ssoUsersAndRelayStates } from "./0020_sso_users_and_relay_states.ts";
import { customProviders } from "./0021_custom_providers.ts";
import type { Migration } from "./migration.ts";

/** Every migration, oldest first. Append only: a released migration is never edited. */
export const migrations: readonly Migration[] = [
  initial,
  auditLog,
  outbox,
  pkce,
  tokenPassword,
  outboxClaim,
  adminLists,
  provenChoices,
  oauth,
  mfa,
  tokenIdentity,
  usedIdTokens,
  browserBoundFlows,
  webauthn,
  oauthClients,
  oauthAuthorizations,
  cleanupIndexes,
  cleanupMarks,
  ssoProviders,
  ssoUsersAndRelayStates,
  customProviders,
];
