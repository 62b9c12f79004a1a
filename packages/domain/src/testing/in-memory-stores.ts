import type { Stores } from "../ports/stores.ts";
import type { StoreContractSubject } from "./contracts/store-contract.ts";
import { inMemoryAuditLog } from "./in-memory/stores/audit-log.ts";
import { inMemoryCustomProviders } from "./in-memory/stores/custom-providers.ts";
import { inMemoryFactors } from "./in-memory/stores/factors.ts";
import { inMemoryFlowStates } from "./in-memory/stores/flow-states.ts";
import { type InMemoryHookFunction, inMemoryHookFunctions } from "./in-memory/stores/hook-functions.ts";
import { inMemoryIdentities } from "./in-memory/stores/identities.ts";
import { inMemoryOAuthAuthorizations } from "./in-memory/stores/oauth-authorizations.ts";
import { inMemoryOAuthClients } from "./in-memory/stores/oauth-clients.ts";
import { inMemoryOAuthConsents } from "./in-memory/stores/oauth-consents.ts";
import { inMemoryOAuthFlows } from "./in-memory/stores/oauth-flows.ts";
import { inMemoryOneTimeTokens } from "./in-memory/stores/one-time-tokens.ts";
import { inMemoryOutbox, readOutbox } from "./in-memory/stores/outbox.ts";
import { inMemoryPasskeys } from "./in-memory/stores/passkeys.ts";
import { inMemorySamlRelayStates } from "./in-memory/stores/saml-relay-states.ts";
import { inMemoryRefreshTokens, inMemorySessions } from "./in-memory/stores/sessions.ts";
import { inMemorySsoProviders } from "./in-memory/stores/sso-providers.ts";
import { inMemoryStaleRows } from "./in-memory/stores/stale-rows.ts";
import { copy, emptyState } from "./in-memory/stores/state.ts";
import { inMemoryUsedIdTokens } from "./in-memory/stores/used-id-tokens.ts";
import { inMemoryUsers } from "./in-memory/stores/users.ts";
import { inMemoryWebAuthnChallenges } from "./in-memory/stores/webauthn-challenges.ts";

/**
 * The stores in memory, and `readOutbox`: what the outbox keeps of a message, for tests to look at. Each aggregate's
 * store is in `in-memory/stores/`, over Maps they all share. Transactions run one at a time and restore a snapshot
 * when their work throws, so a test notices when a rollback would undo something; calls made outside a transaction
 * are single-call transactions.
 */
export function createInMemoryStores(): StoreContractSubject & {
  /** Defines the database function `schema.name` that a hook of URI pg-functions://postgres/schema/name calls. */
  defineHookFunction(qualifiedName: string, fn: InMemoryHookFunction): void;
} {
  const state = emptyState();
  // Outside `state`: functions are no data a snapshot copies.
  const hookFunctions = new Map<string, InMemoryHookFunction>();
  let queue: Promise<unknown> = Promise.resolve();

  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };

  const run = <T>(work: (stores: Stores) => Promise<T>): Promise<T> =>
    exclusive(async () => {
      const snapshot = copy(state);
      try {
        return await work(bound);
      } catch (error) {
        // In place: every store holds this same object.
        Object.assign(state, snapshot);
        throw error;
      }
    });

  const users = inMemoryUsers(state);
  const auditLog = inMemoryAuditLog(state);
  const bound: Stores = {
    users,
    factors: inMemoryFactors(state),
    passkeys: inMemoryPasskeys(state),
    webauthnChallenges: inMemoryWebAuthnChallenges(state),
    oauthClients: inMemoryOAuthClients(state),
    oauthAuthorizations: inMemoryOAuthAuthorizations(state),
    oauthConsents: inMemoryOAuthConsents(state),
    ssoProviders: inMemorySsoProviders(state),
    samlRelayStates: inMemorySamlRelayStates(state),
    customProviders: inMemoryCustomProviders(state),
    identities: inMemoryIdentities(state),
    sessions: inMemorySessions(state, { users, auditLog }),
    refreshTokens: inMemoryRefreshTokens(state),
    oneTimeTokens: inMemoryOneTimeTokens(state),
    auditLog,
    outbox: inMemoryOutbox(state),
    flowStates: inMemoryFlowStates(state),
    oauthFlows: inMemoryOAuthFlows(state),
    usedIdTokens: inMemoryUsedIdTokens(state),
    hookFunctions: inMemoryHookFunctions(hookFunctions),
    staleRows: inMemoryStaleRows(state),
  };

  return {
    stores: singleCalls(bound, run),
    tx: { run },
    readOutbox: async (id) => readOutbox(state, id),
    defineHookFunction: (qualifiedName, fn) => void hookFunctions.set(qualifiedName, fn),
  };
}

/** The stores outside a transaction: every call a transaction of its own. */
function singleCalls(bound: Stores, run: <T>(work: (stores: Stores) => Promise<T>) => Promise<T>): Stores {
  const single = (store: object) =>
    Object.fromEntries(
      Object.entries(store).map(([name, method]) => [
        name,
        (...args: unknown[]) => run(() => (method as (...a: unknown[]) => Promise<unknown>)(...args)),
      ]),
    );
  return Object.fromEntries(Object.entries(bound).map(([name, store]) => [name, single(store)])) as unknown as Stores;
}
