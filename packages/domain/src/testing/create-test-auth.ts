import { createAuth } from "../auth.ts";
import type { AuthPolicy } from "../policy.ts";
import type { Ports } from "../ports/index.ts";
import { FastPasswordHasher } from "./fast-password-hasher.ts";
import { createInMemoryStores } from "./in-memory-stores.ts";
import { nodeRandom } from "./node-random.ts";
import { RecordingMailer, RecordingSmsSender } from "./recording-senders.ts";
import { TestClock } from "./test-clock.ts";
import { type DeepPartial, testPolicy } from "./test-policy.ts";
import { createTestSecrets } from "./test-secrets.ts";
import { TestTokenSigner } from "./test-token-signer.ts";

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
  const { stores, tx } = createInMemoryStores();
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
    ...options.ports,
  };
  const policy = testPolicy(options.policy);
  // The stores the use cases actually use: the caller's when it passed its own.
  return { auth: createAuth(ports, policy), ports, policy, clock, mailer, sms, hasher, stores: ports.stores };
}

export type TestAuth = ReturnType<typeof createTestAuth>;
