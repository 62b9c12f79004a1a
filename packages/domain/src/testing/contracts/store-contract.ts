import { afterAll, beforeAll, describe } from "vitest";
import { describeAuditLogContract } from "./stores/audit-log.ts";
import { describeCustomProvidersContract } from "./stores/custom-providers.ts";
import { describeFactorsContract } from "./stores/factors.ts";
import { describeFlowStatesContract } from "./stores/flow-states.ts";
import { describeIdentitiesContract } from "./stores/identities.ts";
import { describeOAuthAuthorizationsContract } from "./stores/oauth-authorizations.ts";
import { describeOAuthClientsContract } from "./stores/oauth-clients.ts";
import { describeOAuthConsentsContract } from "./stores/oauth-consents.ts";
import { describeOAuthFlowsContract } from "./stores/oauth-flows.ts";
import { describeOneTimeTokensContract } from "./stores/one-time-tokens.ts";
import { describeOutboxContract } from "./stores/outbox.ts";
import { describePasskeysContract } from "./stores/passkeys.ts";
import { describeSamlRelayStatesContract } from "./stores/saml-relay-states.ts";
import { describeSessionsContract } from "./stores/sessions.ts";
import { describeSsoProvidersContract } from "./stores/sso-providers.ts";
import { describeStaleRowsContract } from "./stores/stale-rows.ts";
import type { StoreContractSubject } from "./stores/support.ts";
import { describeTransactionsContract } from "./stores/transactions.ts";
import { describeUsedIdTokensContract } from "./stores/used-id-tokens.ts";
import { describeUsersContract } from "./stores/users.ts";
import { describeWebAuthnChallengesContract } from "./stores/webauthn-challenges.ts";

export type { StoreContractSubject } from "./stores/support.ts";

/**
 * What every implementation of the domain's stores must do. Run against the in-memory stores and against every
 * database adapter, so that the fakes the unit tests rely on cannot drift from the real thing. Each aggregate's part
 * is in `stores/`; the subject is set up once for all of them.
 */
export function describeStoreContract(name: string, setup: () => Promise<StoreContractSubject>): void {
  describe(`${name}: store contract`, () => {
    let subject: StoreContractSubject;

    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject.close?.();
    });

    const harness = () => subject;
    describeUsersContract(harness);
    describeIdentitiesContract(harness);
    describeFactorsContract(harness);
    describePasskeysContract(harness);
    describeWebAuthnChallengesContract(harness);
    describeSessionsContract(harness);
    describeUsedIdTokensContract(harness);
    describeOneTimeTokensContract(harness);
    describeFlowStatesContract(harness);
    describeOAuthFlowsContract(harness);
    describeOAuthClientsContract(harness);
    describeOAuthAuthorizationsContract(harness);
    describeOAuthConsentsContract(harness);
    describeSsoProvidersContract(harness);
    describeSamlRelayStatesContract(harness);
    describeCustomProvidersContract(harness);
    describeAuditLogContract(harness);
    describeOutboxContract(harness);
    describeStaleRowsContract(harness);
    describeTransactionsContract(harness);
  });
}
