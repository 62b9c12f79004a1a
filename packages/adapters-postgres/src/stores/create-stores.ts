import type { Stores, Transactor } from "@latchkey/domain";
import type { Database, RunInTransaction } from "../database.ts";
import type { Schema } from "../schema/create-schema.ts";
import type { Atomic } from "./atomic.ts";
import { createAuditLogStore } from "./audit-log-store.ts";
import { translatingErrors } from "./database-error.ts";
import { createFactorStore } from "./factor-store.ts";
import { createFlowStateStore } from "./flow-state-store.ts";
import { createIdentityStore } from "./identity-store.ts";
import { createOAuthFlowStore } from "./oauth-flow-store.ts";
import { createOneTimeTokenStore } from "./one-time-token-store.ts";
import { createOutboxStore } from "./outbox-store.ts";
import { createRefreshTokenStore } from "./refresh-token-store.ts";
import { asServiceFailure } from "./service-failure.ts";
import { createSessionStore } from "./session-store.ts";
import { createUsedIdTokenStore } from "./used-id-token-store.ts";
import { createUserStore } from "./user-store.ts";

/** Every store over `db`; `atomic` groups the statements of one method (see Atomic). */
export function createStores(db: Database, schema: Schema, atomic: Atomic): Stores {
  return {
    users: translatingErrors(createUserStore(db, schema, atomic)),
    factors: translatingErrors(createFactorStore(db, schema)),
    identities: translatingErrors(createIdentityStore(db, schema)),
    sessions: translatingErrors(createSessionStore(db, schema)),
    refreshTokens: translatingErrors(createRefreshTokenStore(db, schema, atomic)),
    oneTimeTokens: translatingErrors(createOneTimeTokenStore(db, schema)),
    auditLog: translatingErrors(createAuditLogStore(db, schema)),
    outbox: translatingErrors(createOutboxStore(db, schema)),
    flowStates: translatingErrors(createFlowStateStore(db, schema)),
    oauthFlows: translatingErrors(createOAuthFlowStore(db, schema)),
    usedIdTokens: translatingErrors(createUsedIdTokenStore(db, schema)),
  };
}

/** Stores outside any transaction (each call commits on its own) and the Transactor that scopes them to one. */
export function createPostgresStores(
  db: Database,
  transaction: RunInTransaction,
  schema: Schema,
): { stores: Stores; tx: Transactor } {
  // A driver that hands out the same Database for the same connection gets the same stores for it, built once.
  const bound = new WeakMap<Database, Stores>();
  const storesOf = (txDb: Database) => {
    let stores = bound.get(txDb);
    if (!stores) {
      stores = createStores(txDb, schema, (statements) => statements(txDb));
      bound.set(txDb, stores);
    }
    return stores;
  };
  // Failing to connect, BEGIN or COMMIT reaches here untranslated: what the stores' methods throw already is.
  const tx: Transactor = {
    run: (work) =>
      transaction((txDb) => work(storesOf(txDb))).catch((error: unknown) => {
        throw asServiceFailure(error);
      }),
  };
  return { stores: createStores(db, schema, transaction), tx };
}
