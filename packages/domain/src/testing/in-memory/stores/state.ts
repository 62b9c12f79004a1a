import type { AuditEntry } from "../../../model/audit.ts";
import type { CustomProvider } from "../../../model/custom-provider.ts";
import type { Factor, MfaChallenge } from "../../../model/factor.ts";
import type { FlowState } from "../../../model/flow-state.ts";
import type { Identity } from "../../../model/identity.ts";
import type { OAuthAuthorization, OAuthConsent } from "../../../model/oauth-authorization.ts";
import type { OAuthClient } from "../../../model/oauth-client.ts";
import type { OAuthFlow } from "../../../model/oauth-flow.ts";
import type { OneTimeToken } from "../../../model/one-time-token.ts";
import type { OutboxEntry } from "../../../model/outbox.ts";
import type { RefreshToken } from "../../../model/refresh-token.ts";
import type { Session } from "../../../model/session.ts";
import type { SamlRelayState, SsoProvider } from "../../../model/sso-provider.ts";
import type { User } from "../../../model/user.ts";
import type { Passkey, WebAuthnChallenge } from "../../../model/webauthn.ts";

/** A user as its row holds it: identities and factors are rows of their own. */
export type UserRow = Omit<User, "identities" | "factors">;

/** A message with the claim that holds it, if any. */
type OutboxRow = OutboxEntry & { leaseUntil: Date | null; claim: string | null };

/** The tables, one object that every store of one `createInMemoryStores` shares. */
export interface State {
  users: Map<string, UserRow>;
  identities: Map<string, Identity>;
  factors: Map<string, Factor>;
  challenges: Map<string, MfaChallenge>;
  passkeys: Map<string, Passkey>;
  webauthnChallenges: Map<string, WebAuthnChallenge>;
  oauthClients: Map<string, OAuthClient>;
  oauthAuthorizations: Map<string, OAuthAuthorization>;
  oauthConsents: Map<string, OAuthConsent>;
  ssoProviders: Map<string, SsoProvider>;
  samlRelayStates: Map<string, SamlRelayState>;
  customProviders: Map<string, CustomProvider>;
  sessions: Map<string, Session>;
  refreshTokens: Map<string, RefreshToken>;
  oneTimeTokens: Map<string, OneTimeToken>;
  auditLog: AuditEntry[];
  outbox: Map<string, OutboxRow>;
  flowStates: Map<string, FlowState>;
  oauthFlows: Map<string, OAuthFlow>;
  usedIdTokens: Map<string, Date>;
  /** How far the clean-up's walk of rotations has got: the (createdAt, id) of the last child it looked at. */
  rotationMark: { readonly createdAt: Date; readonly id: string } | null;
}

export const emptyState = (): State => ({
  users: new Map(),
  identities: new Map(),
  factors: new Map(),
  challenges: new Map(),
  passkeys: new Map(),
  webauthnChallenges: new Map(),
  oauthClients: new Map(),
  oauthAuthorizations: new Map(),
  oauthConsents: new Map(),
  ssoProviders: new Map(),
  samlRelayStates: new Map(),
  customProviders: new Map(),
  sessions: new Map(),
  refreshTokens: new Map(),
  oneTimeTokens: new Map(),
  auditLog: [],
  outbox: new Map(),
  flowStates: new Map(),
  oauthFlows: new Map(),
  usedIdTokens: new Map(),
  rotationMark: null,
});

// Everything goes in and out as a copy, as it would through a database.
export const copy = <T>(value: T): T => structuredClone(value);

/** Case-insensitive substring, as ILIKE '%text%' with every character literal. */
export const contains = (value: string | null, text: string) =>
  value?.toLowerCase().includes(text.toLowerCase()) ?? false;

export const deleteWhere = <T>(map: Map<string, T>, matches: (value: T) => boolean) => {
  for (const [key, value] of map) if (matches(value)) map.delete(key);
};
