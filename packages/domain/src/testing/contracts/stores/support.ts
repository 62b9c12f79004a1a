// What the store contract's aggregates share: the subject under test, and the fixtures more than one of them builds.
import type { Factor } from "../../../model/factor.ts";
import type { FlowState } from "../../../model/flow-state.ts";
import type { OAuthAuthorization, OAuthConsent } from "../../../model/oauth-authorization.ts";
import type { OAuthClient } from "../../../model/oauth-client.ts";
import type { OAuthFlow } from "../../../model/oauth-flow.ts";
import type { OneTimeToken } from "../../../model/one-time-token.ts";
import type { OutboxEntry } from "../../../model/outbox.ts";
import type { RefreshToken } from "../../../model/refresh-token.ts";
import type { Session } from "../../../model/session.ts";
import type { SamlRelayState, SsoProvider } from "../../../model/sso-provider.ts";
import type { Passkey, WebAuthnKey } from "../../../model/webauthn.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { nodeRandom } from "../../node-random.ts";

/** An implementation of the stores, as the contract runs it. */
export interface StoreContractSubject {
  readonly stores: Stores;
  readonly tx: Transactor;
  /** What the outbox keeps of a message (sealed content included): the tests' window, no port's business. */
  readonly readOutbox: (id: string) => Promise<OutboxEntry | null>;
  close?(): Promise<void>;
}

/**
 * How an aggregate's suite reaches the subject, which `describeStoreContract` sets up once for all of them: call it in
 * a `beforeAll` or a test, never while declaring.
 */
export type StoreContractHarness = () => StoreContractSubject;

export const t = (iso: string) => new Date(`2026-03-04T${iso}Z`);
export const uuid = () => nodeRandom.uuid();
export const digest = () => nodeRandom.token(32);
/** Text no other test writes: what a list filters on, so it sees only its own test's rows in a shared database. */
export const uniqueTag = () => uuid().slice(0, 8);
export const idsOf = (items: readonly { id: string }[]) => items.map((item) => item.id);
/** In id order, so lists answered in no particular order compare. */
export const sortedById = <T extends { id: string }>(items: readonly T[]) =>
  [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** An unverified TOTP factor, unnamed. */
export function aFactor(userId: string, overrides: Partial<Factor> = {}): Factor {
  return {
    id: uuid(),
    userId,
    type: "totp",
    friendlyName: null,
    status: "unverified",
    sealedSecret: `sealed-${uuid()}`,
    phone: null,
    lastTotpStep: null,
    webauthn: null,
    lastChallengedAt: null,
    createdAt: t("18:00:00.000"),
    updatedAt: t("18:00:00.000"),
    ...overrides,
  };
}

/**
 * A credential as a registration ceremony hands it over, of a credential id no other test uses. Binary values are
 * random, base64url without padding, of lengths that leave bits over in the last character (as real ones do).
 */
export function aWebAuthnKey(overrides: Partial<WebAuthnKey> = {}): WebAuthnKey {
  return {
    credentialId: nodeRandom.token(16),
    publicKey: nodeRandom.token(77),
    signCount: 0,
    transports: ["internal", "hybrid"],
    aaguid: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4",
    attestationType: "none",
    backupEligible: true,
    backedUp: true,
    ...overrides,
  };
}

/** A named passkey of the user, never used. */
export function aPasskey(userId: string, overrides: Partial<Passkey> = {}): Passkey {
  return {
    ...aWebAuthnKey(),
    id: uuid(),
    userId,
    friendlyName: "Laptop",
    createdAt: t("19:00:00.000"),
    updatedAt: t("19:00:00.000"),
    lastUsedAt: null,
    ...overrides,
  };
}

/** A confidential client registered by an admin, of every optional field set, never deleted. */
export function anOAuthClient(overrides: Partial<OAuthClient> = {}): OAuthClient {
  return {
    id: uuid(),
    registrationType: "manual",
    clientType: "confidential",
    tokenEndpointAuthMethod: "client_secret_basic",
    secretDigest: digest(),
    redirectUris: ["https://app.example.com/callback"],
    grantTypes: ["authorization_code", "refresh_token"],
    name: "Example App",
    uri: "https://app.example.com",
    logoUri: "https://app.example.com/logo.png",
    createdAt: t("20:00:00.000"),
    updatedAt: t("20:00:00.000"),
    deletedAt: null,
    ...overrides,
  };
}

/** An authorization request's id as the server makes them: 32 random alphanumerics, no uuid. */
export const anAuthorizationId = () => uuid().replaceAll("-", "");

/** A pending request of the client, bound to no user yet, of every optional field set; three minutes to live. */
export function anOAuthAuthorization(
  clientId: string,
  overrides: Partial<OAuthAuthorization> = {},
): OAuthAuthorization {
  return {
    id: anAuthorizationId(),
    clientId,
    userId: null,
    redirectUri: "https://app.example.com/callback",
    scope: "openid email offline_access",
    state: `state-${uniqueTag()}`,
    resource: "https://api.example.com/",
    codeChallenge: digest(),
    nonce: `nonce-${uniqueTag()}`,
    status: "pending",
    codeDigest: null,
    sessionId: null,
    createdAt: t("21:00:00.000"),
    expiresAt: t("21:03:00.000"),
    approvedAt: null,
    ...overrides,
  };
}

/** The user's consent to the client, to two scopes, not revoked. */
export function anOAuthConsent(userId: string, clientId: string, overrides: Partial<OAuthConsent> = {}): OAuthConsent {
  return {
    id: uuid(),
    userId,
    clientId,
    scopes: ["openid", "email"],
    grantedAt: t("21:01:00.000"),
    revokedAt: null,
    ...overrides,
  };
}

export function aRefreshToken(sessionId: string, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return { id: uuid(), sessionId, parentId: null, tokenHash: digest(), createdAt: t("10:00:00.000"), ...overrides };
}

/** Stores a session with the first token of its family, as every sign-in does, and returns that token. */
export async function storeSession(
  stores: Stores,
  session: Session,
  token = aRefreshToken(session.id, { id: session.refreshTokenId ?? uuid() }),
) {
  await stores.sessions.open({ ...session, refreshTokenId: token.id }, token);
  return token;
}

export function anOtt(userId: string, overrides: Partial<OneTimeToken> = {}): OneTimeToken {
  return {
    id: uuid(),
    userId,
    kind: "confirmation",
    relatesTo: "someone@example.com",
    linkTokenHash: digest(),
    otpHash: digest(),
    failedAttempts: 0,
    codeChallenge: null,
    codeChallengeMethod: null,
    passwordHash: null,
    userMetadata: null,
    identityId: null,
    createdAt: t("10:00:00.000"),
    ...overrides,
  };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

export function anOAuthFlow(overrides: Partial<OAuthFlow> = {}): OAuthFlow {
  return {
    id: uuid(),
    provider: "github",
    redirectTo: "https://app.example.com/welcome",
    codeChallenge: null,
    codeChallengeMethod: null,
    inviteUserId: null,
    linkingTargetId: null,
    sealedSecret: null,
    browserBindingHash: null,
    createdAt: t("17:00:00.000"),
    ...overrides,
  };
}

/** A PKCE flow of the user's, waiting for its code: a magic link's, with a fresh code digest. */
export function aFlowState(userId: string, overrides: Partial<FlowState> = {}): FlowState {
  return {
    id: uuid(),
    authCodeHash: digest(),
    userId,
    codeChallenge: "c".repeat(43),
    codeChallengeMethod: "s256",
    authenticationMethod: "magiclink",
    provider: null,
    pendingLink: null,
    createdAt: t("16:00:00.000"),
    ...overrides,
  };
}

/** An SSO provider of its own EntityID and domains (under `tag`, so that tests sharing a database never collide). */
export function anSsoProvider(tag: string, overrides: Partial<SsoProvider> = {}): SsoProvider {
  return {
    id: uuid(),
    resourceId: null,
    disabled: null,
    saml: {
      entityId: `https://idp.${tag}.example/${uuid()}`,
      metadataXml: "<EntityDescriptor/>",
      metadataUrl: null,
      attributeMapping: { keys: { name: { name: "displayName" }, groups: { names: ["groups"], array: true } } },
      nameIdFormat: null,
    },
    domains: [`${tag}.example`],
    createdAt: t("10:00:00.000"),
    updatedAt: t("10:00:00.000"),
    ...overrides,
  };
}

/** A SAML sign-in sent to the provider, no PKCE flow, waiting at the ACS. */
export function aSamlRelayState(ssoProviderId: string, overrides: Partial<SamlRelayState> = {}): SamlRelayState {
  return {
    id: uuid(),
    ssoProviderId,
    requestId: `_${uuid()}`,
    redirectTo: "https://app.example.com/welcome",
    codeChallenge: null,
    codeChallengeMethod: null,
    createdAt: t("17:30:00.000"),
    ...overrides,
  };
}
