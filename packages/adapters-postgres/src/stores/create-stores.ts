import type { Stores, Transactor } from "@latchkey/domain";
import type { Connection, Database, Driver } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { Atomic } from "./atomic.ts";
import { createAuditLogStore } from "./audit-log-store.ts";
import { createCustomProviderStore } from "./custom-provider-store.ts";
import { toDatabaseError, translatingErrors } from "./database-error.ts";
import { createFactorStore } from "./factor-store.ts";
import { createFlowStateStore } from "./flow-state-store.ts";
import { createHookFunctionStore } from "./hook-function-store.ts";
import { createIdentityStore } from "./identity-store.ts";
import { createOAuthAuthorizationStore } from "./oauth-authorization-store.ts";
import { createOAuthClientStore } from "./oauth-client-store.ts";
import { createOAuthConsentStore } from "./oauth-consent-store.ts";
import { createOAuthFlowStore } from "./oauth-flow-store.ts";
import { createOneTimeTokenStore } from "./one-time-token-store.ts";
import { createOutboxStore } from "./outbox-store.ts";
import { createPasskeyStore } from "./passkey-store.ts";
import { createRefreshTokenStore } from "./refresh-token-store.ts";
import { createSamlRelayStateStore } from "./saml-relay-state-store.ts";
import { scopedStoresOf } from "./scoped-stores.ts";
import { asServiceFailure } from "./service-failure.ts";
import { createSessionStore } from "./session-store.ts";
import { createSsoProviderStore } from "./sso-provider-store.ts";
import { createStaleRowStore } from "./stale-row-store.ts";
import { createUsedIdTokenStore } from "./used-id-token-store.ts";
import { createUserStore } from "./user-store.ts";
import { createWebAuthnChallengeStore } from "./webauthn-challenge-store.ts";

/** Every store over `db`; `atomic` groups the statements of one method (see Atomic). */
function createStores(db: Database, schema: Schema, atomic: Atomic): Stores {
  return {
    users: translatingErrors(createUserStore(db, schema, atomic)),
    factors: translatingErrors(createFactorStore(db, schema)),
    passkeys: translatingErrors(createPasskeyStore(db, schema)),
    webauthnChallenges: translatingErrors(createWebAuthnChallengeStore(db, schema)),
    oauthClients: translatingErrors(createOAuthClientStore(db, schema)),
    oauthAuthorizations: translatingErrors(createOAuthAuthorizationStore(db, schema)),
    oauthConsents: translatingErrors(createOAuthConsentStore(db, schema)),
    ssoProviders: translatingErrors(createSsoProviderStore(db, schema, atomic)),
    samlRelayStates: translatingErrors(createSamlRelayStateStore(db, schema)),
    customProviders: translatingErrors(createCustomProviderStore(db, schema)),
    identities: translatingErrors(createIdentityStore(db, schema)),
    sessions: translatingErrors(createSessionStore(db, schema)),
    refreshTokens: translatingErrors(createRefreshTokenStore(db, schema, atomic)),
    oneTimeTokens: translatingErrors(createOneTimeTokenStore(db, schema)),
    auditLog: translatingErrors(createAuditLogStore(db, schema)),
    outbox: translatingErrors(createOutboxStore(db, schema)),
    flowStates: translatingErrors(createFlowStateStore(db, schema)),
    oauthFlows: translatingErrors(createOAuthFlowStore(db, schema)),
    usedIdTokens: translatingErrors(createUsedIdTokenStore(db, schema)),
    hookFunctions: translatingErrors(createHookFunctionStore(atomic)),
    staleRows: translatingErrors(createStaleRowStore(db, schema)),
  };
}

/** The stores and transactions of work with a deadline (a request's): every statement gets what is left of it. */
export interface ScopedStores {
  readonly stores: Stores;
  readonly tx: Transactor;
}

/**
 * Stores outside any transaction (each call commits on its own) and the Transactor that scopes them to one, for
 * work with no deadline of its own (bounded by the driver's timeout); `within` gives the same for work that must end
 * by a deadline. There, each store call checks out a connection by the deadline and runs on that connection's own
 * stores, built once per connection as a transaction's are: the statements prepared on it (prepared.ts) are kept.
 */
export function createPostgresStores(
  driver: Pick<Driver, "db" | "transaction" | "onConnection">,
  schema: Schema,
): { stores: Stores; tx: Transactor; within: (deadlineAt: number) => ScopedStores } {
  // A transaction's Database and a checked-out Connection are each the same object for the same pooled connection
  // (the driver keeps them), so their stores are built once per connection.
  const storesOf = builtOnce((txDb: Database) => createStores(txDb, schema, (statements) => statements(txDb)));
  const storesOn = builtOnce((connection: Connection) => createStores(connection.db, schema, connection.atomic));
  // Failing to connect, to get a connection by the deadline, BEGIN or COMMIT reaches here untranslated: what the
  // stores' methods throw already is.
  const failure = (error: unknown): never => {
    throw asServiceFailure(toDatabaseError(error));
  };
  const transactor = (deadlineAt?: number): Transactor => ({
    run: (work) => driver.transaction((txDb) => work(storesOf(txDb)), deadlineAt).catch(failure),
  });
  const stores = createStores(driver.db, schema, driver.transaction);
  const scoped = scopedStoresOf(stores);
  return {
    stores,
    tx: transactor(),
    within: (deadlineAt) => ({
      stores: scoped((call) =>
        driver.onConnection(deadlineAt, (connection) => call(storesOn(connection))).catch(failure),
      ),
      tx: transactor(deadlineAt),
    }),
  };
}

/** `make`, called once per key while the key lives. */
function builtOnce<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const built = new WeakMap<K, V>();
  return (key) => {
    let value = built.get(key);
    if (value === undefined) {
      value = make(key);
      built.set(key, value);
    }
    return value;
  };
}
