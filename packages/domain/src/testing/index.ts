// Test doubles and contract suites. Shipped with the domain so anyone can run the core without a database;
// never imported by production code.
export { aSession, aUser } from "./builders.ts";
export {
  describeHookCallerContract,
  type ExpectedHookError,
  type HookBehaviour,
  type HookCallerSubject,
} from "./contracts/hook-caller-contract.ts";
export { type DeliveredMail, describeMailerContract, type MailerSubject } from "./contracts/mailer-contract.ts";
export {
  describeOAuthProviderContract,
  type ExpectedIdentity,
  type OAuthProviderFixture,
  type OAuthProviderSubject,
  PROVIDER_WORDS,
  type ProviderRequest,
} from "./contracts/oauth-provider-contract.ts";
export { describeRateLimiterContract } from "./contracts/rate-limiter-contract.ts";
export {
  type DeliveredSms,
  describeSmsSenderContract,
  type SmsSenderSubject,
} from "./contracts/sms-sender-contract.ts";
export { describeStoreContract, type StoreContractSubject } from "./contracts/store-contract.ts";
export { describeTokenSignerContract, type TokenSignerSubject } from "./contracts/token-signer-contract.ts";
export { createTestAuth, type TestAuth, type TestAuthOptions } from "./create-test-auth.ts";
export { context, failsWith } from "./fails-with.ts";
export {
  FakeCustomProviderRuntime,
  type FakeCustomProviderRuntimeOptions,
  oidcDiscovery,
} from "./fake-custom-provider-runtime.ts";
export { FakeOAuthProvider, fakeProfile, providerEmail } from "./fake-oauth-provider.ts";
export { FakeSamlMetadata, idpMetadataXml } from "./fake-saml-metadata.ts";
export { FakeSamlServiceProvider, samlAssertion } from "./fake-saml-service-provider.ts";
export { FastPasswordHasher, OUTDATED_PREFIX } from "./fast-password-hasher.ts";
export { type InMemoryHookFunction, RaisedInFunction } from "./in-memory/stores/hook-functions.ts";
export { createInMemoryStores } from "./in-memory-stores.ts";
export { type LinkOutcome, linkThroughProvider, PKCE_EXAMPLE } from "./link-through-provider.ts";
export { nodeRandom } from "./node-random.ts";
export { RecordingFlowEvents } from "./recording-flow-events.ts";
export { describeIfAvailable, skipAllIfMissing } from "./skips.ts";
export { TestClock } from "./test-clock.ts";
export { testFactorSecrets } from "./test-factor-secrets.ts";
export { testOAuthCatalog } from "./test-oauth-catalog.ts";
export { createTestSecrets } from "./test-secrets.ts";
export { TestTotp, totpCode, totpStep } from "./test-totp.ts";
