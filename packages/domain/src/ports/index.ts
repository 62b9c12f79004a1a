import type { OAuthProviderCatalog } from "../model/oauth-providers.ts";
import type { CaptchaVerifier } from "./captcha-verifier.ts";
import type { Clock } from "./clock.ts";
import type { CustomProviderRuntime } from "./custom-providers.ts";
import type { FactorSecrets } from "./factor-secrets.ts";
import type { FlowEvents } from "./flow-events.ts";
import type { Hooks } from "./hooks.ts";
import type { Mailer } from "./mailer.ts";
import type { OAuthProvider } from "./oauth-provider.ts";
import type { PasswordHasher } from "./password-hasher.ts";
import type { PwnedPasswords } from "./pwned-passwords.ts";
import type { Random } from "./random.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import type { SamlMetadataReader, SamlServiceProvider } from "./saml.ts";
import type { Secrets } from "./secrets.ts";
import type { SmsSender } from "./sms-sender.ts";
import type { Stores, Transactor } from "./stores.ts";
import type { TokenSigner } from "./token-signer.ts";
import type { TotpAuthenticator } from "./totp.ts";
import type { Web3Verifier } from "./web3.ts";
import type { WebAuthnCeremony } from "./webauthn.ts";

export type { ProviderEmail, ProviderProfile, ProviderTokens } from "../model/provider-profile.ts";
export type {
  AccountImportTarget,
  ImportBatchReport,
  ImportedAccount,
  ImportedCounts,
  ImportedSession,
} from "./account-import.ts";
export type { CaptchaVerdict, CaptchaVerifier } from "./captcha-verifier.ts";
export type { CustomProviderRuntime } from "./custom-providers.ts";
export type { FactorSecrets } from "./factor-secrets.ts";
export type { FlowEvent, FlowEvents, MessageKind, RateLimitName } from "./flow-events.ts";
export type { HookAnswer, HookCaller, HookCallOptions, HookName, HookPayload, Hooks } from "./hooks.ts";
export type { AuthEmail, MailDelivery } from "./mailer.ts";
export type {
  AuthorizationRequest,
  AuthorizationStart,
  IdTokenVerifier,
  OAuthCallback,
  OAuthProvider,
  OAuthProviderStage,
  ProviderSignIn,
  VerifiedIdToken,
} from "./oauth-provider.ts";
export type { PasswordVerification } from "./password-hasher.ts";
export type { RateCount, RateDecision } from "./rate-limiter.ts";
export type { SamlMetadataReader, SamlServiceProvider } from "./saml.ts";
export type { AuthSms, SmsChannel } from "./sms-sender.ts";
export type { StaleRowKind, StaleRowStore } from "./stale-rows.ts";
export type * from "./stores.ts";
export type { TotpAuthenticator, TotpEnrollment } from "./totp.ts";
export type { Web3Chain, Web3Message, Web3MessageUri, Web3Verifier } from "./web3.ts";
export type {
  AssertionSubject,
  AuthenticationRequest,
  CeremonyOptions,
  Expectation,
  RegistrationRequest,
  VerifiedAssertion,
  WebAuthnCeremony,
} from "./webauthn.ts";
export type {
  Clock,
  Mailer,
  OAuthProviderCatalog,
  PasswordHasher,
  PwnedPasswords,
  Random,
  RateLimiter,
  Secrets,
  SmsSender,
  Stores,
  TokenSigner,
  Transactor,
};

/** Everything the domain needs from the outside world. */
export interface Ports {
  /** For reads and single writes outside a transaction. */
  readonly stores: Stores;
  readonly tx: Transactor;
  /**
   * The stores and transactions of a request that must be answered by `deadlineAt` (ms since the epoch): their
   * statements get what is left of it. Absent where storage has no time limits (the in-memory stores).
   */
  readonly within?: ((deadlineAt: number) => { readonly stores: Stores; readonly tx: Transactor }) | undefined;
  readonly hasher: PasswordHasher;
  readonly signer: TokenSigner;
  readonly secrets: Secrets;
  readonly clock: Clock;
  readonly random: Random;
  readonly mailer: Mailer;
  readonly sms: SmsSender;
  /** Send frequencies and quotas; shared between instances when Redis backs it. */
  readonly rateLimiter: RateLimiter;
  /** SECURITY_CAPTCHA_*: null when captcha protection is off. */
  readonly captcha: CaptchaVerifier | null;
  /** PASSWORD_HIBP_*: null when leaked-password protection is off. */
  readonly pwnedPasswords: PwnedPasswords | null;
  /** The enabled OAuth providers, by canonical name. */
  readonly oauthProviders: ReadonlyMap<string, OAuthProvider>;
  /** Every OAuth provider there is, enabled or not, and the other names they are reached under. */
  readonly oauthCatalog: OAuthProviderCatalog;
  /** Identity providers' SAML metadata, given by an admin or fetched from its URL (SAML single sign-on). */
  readonly samlMetadata: SamlMetadataReader;
  /** Custom providers' URL checks, discovery and sign-in (CUSTOM_OAUTH_*): null when they are switched off. */
  readonly customProviders: CustomProviderRuntime | null;
  /** Latchkey as a SAML service provider (SAML_*): null when SAML single sign-on is switched off. */
  readonly samlServiceProvider: SamlServiceProvider | null;
  /** TOTP codes, secrets and enrollment URIs (MFA). */
  readonly totp: TotpAuthenticator;
  /** Seals TOTP secrets for storage, with a key of their own. */
  readonly factorSecrets: FactorSecrets;
  /**
   * The WebAuthn relying party (WEBAUTHN_RP_*), for passkeys and WebAuthn factors; null when neither is switched on.
   */
  readonly webauthn: WebAuthnCeremony | null;
  /** Signatures of Web3 sign-in messages (EXTERNAL_WEB3_*): null when no chain is switched on. */
  readonly web3: Web3Verifier | null;
  /** The hooks switched on (HOOK_*); none by default. */
  readonly hooks: Hooks;
  /** What the flows did, for metrics; ignoredFlowEvents when metrics are off. */
  readonly events: FlowEvents;
}
