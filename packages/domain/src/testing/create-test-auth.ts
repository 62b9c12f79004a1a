import { type Auth, createAuth } from "../auth.ts";
import { createInMemoryRateLimiter } from "../in-memory/rate-limiter.ts";
import type { AuthEmail, AuthEmailKind } from "../model/mail.ts";
import type { AuthSms } from "../model/sms.ts";
import type { AuthPolicy } from "../policy.ts";
import type { Ports } from "../ports/index.ts";
import { FakeCustomProviderRuntime } from "./fake-custom-provider-runtime.ts";
import { FakeSamlMetadata } from "./fake-saml-metadata.ts";
import { FakeSamlServiceProvider } from "./fake-saml-service-provider.ts";
import { fakeWeb3Verifier } from "./fake-web3.ts";
import { fakeWebAuthn } from "./fake-webauthn.ts";
import { FastPasswordHasher } from "./fast-password-hasher.ts";
import { createInMemoryStores } from "./in-memory-stores.ts";
import { nodeRandom } from "./node-random.ts";
import { RecordingFlowEvents } from "./recording-flow-events.ts";
import { RecordingMailer, RecordingSmsSender } from "./recording-senders.ts";
import { TestClock } from "./test-clock.ts";
import { testFactorSecrets } from "./test-factor-secrets.ts";
import { testOAuthCatalog } from "./test-oauth-catalog.ts";
import { type DeepPartial, testPolicy } from "./test-policy.ts";
import { createTestSecrets } from "./test-secrets.ts";
import { TestTokenSigner } from "./test-token-signer.ts";
import { TestTotp } from "./test-totp.ts";

export interface TestAuthOptions {
  readonly policy?: DeepPartial<AuthPolicy>;
  readonly ports?: Partial<Ports>;
}

/** The domain wired to in-memory adapters, with handles on the fakes a test wants to drive or inspect. */
export function createTestAuth(options: TestAuthOptions = {}) {
  const clock = new TestClock();
  const mailer = new RecordingMailer();
  const sms = new RecordingSmsSender();
  const hasher = new FastPasswordHasher();
  const events = new RecordingFlowEvents();
  const { stores, tx, readOutbox, defineHookFunction } = createInMemoryStores();
  const ports: Ports = {
    stores,
    tx,
    hasher,
    signer: new TestTokenSigner(clock),
    secrets: createTestSecrets(),
    clock,
    random: nodeRandom,
    mailer,
    sms,
    rateLimiter: createInMemoryRateLimiter(clock),
    oauthProviders: new Map(),
    oauthCatalog: testOAuthCatalog,
    captcha: null,
    pwnedPasswords: null,
    samlMetadata: new FakeSamlMetadata(),
    samlServiceProvider: new FakeSamlServiceProvider(),
    customProviders: new FakeCustomProviderRuntime(),
    totp: new TestTotp(),
    factorSecrets: testFactorSecrets,
    webauthn: fakeWebAuthn,
    web3: fakeWeb3Verifier,
    hooks: {},
    events,
    ...options.ports,
  };
  const policy = testPolicy(options.policy);
  const auth = inOneBrowser(createAuth(ports, policy));

  const readers = outboxReaders(auth, { mailer, sms });
  // The stores the use cases actually use: the caller's when it passed its own.
  return {
    auth,
    ports,
    policy,
    clock,
    mailer,
    sms,
    hasher,
    events,
    stores: ports.stores,
    readOutbox,
    /** Defines a database function for pg-functions:// hooks (in memory, see createInMemoryStores). */
    defineHookFunction,
    ...readers,
  };
}

/** What the outbox delivers, read once it has: each reader delivers everything due first. */
function outboxReaders(auth: Auth, { mailer, sms }: { mailer: RecordingMailer; sms: RecordingSmsSender }) {
  /** Delivers everything the outbox holds that is due. */
  const deliver = async () => {
    while ((await auth.deliverDueMessages()).claimed > 0);
  };
  return {
    deliver,
    /** The latest email of `kind` to `to`, once the outbox has been delivered. */
    lastEmail: async <K extends AuthEmailKind>(to: string, kind: K) => {
      await deliver();
      return mailer.sent.filter((email) => email.to === to && email.kind === kind).at(-1) as
        | Extract<AuthEmail, { kind: K }>
        | undefined;
    },
    /** Every email sent so far, once the outbox has been delivered. */
    emails: async () => {
      await deliver();
      return mailer.sent;
    },
    lastSms: async (to: string): Promise<AuthSms | undefined> => {
      await deliver();
      return sms.lastTo(to);
    },
  };
}

export type TestAuth = ReturnType<typeof createTestAuth>;

/**
 * The Auth facade as one browser uses it: what /authorize gives the browser to keep (the flow's cookie) is kept and
 * brought back to /callback, unless a test passes its own `browserBinding` (another browser: `undefined`).
 */
function inOneBrowser(auth: Auth): Auth {
  const kept = new Map<string, string>();
  return {
    ...auth,
    oauth: {
      ...auth.oauth,
      start: async (input) => {
        const started = await auth.oauth.start(input);
        if (started.kind === "started" && started.browserBinding)
          kept.set(started.browserBinding.flowId, started.browserBinding.secret);
        return started;
      },
      complete: (input) => auth.oauth.complete({ browserBinding: (flowId) => kept.get(flowId), ...input }),
    },
  };
}
