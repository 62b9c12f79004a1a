import type { AccessTokenPolicy } from "./model/access-token-claims.ts";
import type { NotificationKind } from "./model/mail.ts";
import type { PasswordPolicy } from "./model/password-policy.ts";
import type { RedirectPolicy } from "./model/redirect.ts";
import type { RefreshPolicy } from "./model/refresh-token.ts";
import type { SessionLimits } from "./model/session.ts";
import type { UserVerification } from "./model/webauthn.ts";

/** The slice of configuration the domain reads; durations carry their unit. */
export interface AuthPolicy {
  /** SITE_URL and URI_ALLOW_LIST: where links and redirects may lead; SITE_URL when nothing else is allowed. */
  readonly redirect: RedirectPolicy;
  /** API_EXTERNAL_URL: this server as the outside reaches it (the `site_url` of the send_email hook's payload). */
  readonly apiExternalUrl: string;
  readonly accessToken: AccessTokenPolicy;
  /** JWT_AUD: the audience of users created without an explicit one. */
  readonly defaultAudience: string;
  /** JWT_DEFAULT_GROUP_NAME: the role of new users. */
  readonly defaultRole: string;
  readonly signup: SignupPolicy;
  readonly password: PasswordPolicy;
  readonly refresh: RefreshPolicy;
  readonly otp: OtpPolicy;
  /** SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION */
  readonly passwordChangeRequiresReauthentication: boolean;
  /** SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: a password change needs the current one (not in recovery). */
  readonly passwordChangeRequiresCurrentPassword: boolean;
  /** SECURITY_MANUAL_LINKING_ENABLED: signed-in users may link and unlink identities (/user/identities/*). */
  readonly manualLinkingEnabled: boolean;
  readonly email: EmailPolicy;
  readonly sms: SmsPolicy;
  /** JWT_ADMIN_ROLES: role claims that may call the admin API and /invite. */
  readonly adminRoles: readonly string[];
  /** Per client IP (failed passwords per account), across every instance when the rate limiter is shared. */
  readonly requestLimits: RequestLimits;
  readonly mfa: MfaPolicy;
  /** SESSIONS_* */
  readonly sessions: SessionLimits;
  readonly passkeys: PasskeyPolicy;
  readonly oauthServer: OAuthServerPolicy;
  readonly saml: SamlPolicy;
  /** EXTERNAL_WEB3_SOLANA_* and EXTERNAL_WEB3_ETHEREUM_*: sign-in with a wallet's signed message, chain by chain. */
  readonly web3: Web3Policy;
  readonly customProviders: CustomProvidersPolicy;
  readonly cleanup: CleanupPolicy;
}

/** CUSTOM_OAUTH_*: providers admins add at run time. */
interface CustomProvidersPolicy {
  /** CUSTOM_OAUTH_ENABLED: /admin/custom-providers answer, and their providers sign people in. */
  readonly enabled: boolean;
  /** CUSTOM_OAUTH_MAX_PROVIDERS: how many there may be; null: no limit. */
  readonly maxProviders: number | null;
}

/** SAML_*: Latchkey as a SAML 2.0 service provider for enterprise single sign-on. */
interface SamlPolicy {
  /** SAML_ENABLED: /sso and /sso/saml/* answer; the admin's /admin/sso/providers answer either way, as GoTrue's. */
  readonly enabled: boolean;
  /** SAML_RELAY_STATE_VALIDITY_PERIOD: how long an identity provider may take to answer a sign-in sent to it. */
  readonly relayStateValiditySeconds: number;
  /**
   * SAML_IDP_INITIATED_ENABLED (ours, on as GoTrue always is): the ACS takes answers no sign-in of ours asked for,
   * started at the identity provider (an app's tile in Okta).
   */
  readonly idpInitiatedEnabled: boolean;
}

/** EXTERNAL_WEB3_*: POST /token?grant_type=web3, per chain. */
interface Web3Policy {
  readonly solana: Web3ChainPolicy;
  readonly ethereum: Web3ChainPolicy;
}

interface Web3ChainPolicy {
  /** EXTERNAL_WEB3_<CHAIN>_ENABLED */
  readonly enabled: boolean;
  /**
   * EXTERNAL_WEB3_<CHAIN>_MAXIMUM_VALIDITY_DURATION: how long after its Issued At a signed message signs in (and how
   * far ahead of now its Issued At may be).
   */
  readonly maximumValiditySeconds: number;
}

/** DB_CLEANUP_*: what the clean-up keeps that is Latchkey's to choose (the rest is Supabase Auth's). */
interface CleanupPolicy {
  /** DB_CLEANUP_OUTBOX_RETENTION: how long finished outbox messages stay, for an operator's questions. */
  readonly outboxRetentionSeconds: number;
}

/** OAUTH_SERVER_*: Latchkey as an OAuth 2.1 authorization server for third-party apps. */
export interface OAuthServerPolicy {
  /** OAUTH_SERVER_ENABLED */
  readonly enabled: boolean;
  /** OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: clients may register themselves (RFC 7591). */
  readonly allowDynamicRegistration: boolean;
  /** OAUTH_SERVER_AUTHORIZATION_PATH: the app's consent page, on SITE_URL; null when unset. */
  readonly authorizationPath: string | null;
  /** OAUTH_SERVER_AUTHORIZATION_TTL: how long an authorization request can be answered and exchanged. */
  readonly authorizationTtlSeconds: number;
  /** OAUTH_SERVER_DEFAULT_SCOPE: the scope of a request that names none. */
  readonly defaultScope: string;
}

/** PASSKEY_* and the WEBAUTHN_* settings the flows read. */
export interface PasskeyPolicy {
  /** PASSKEY_ENABLED */
  readonly enabled: boolean;
  /** PASSKEY_MAX_PASSKEYS_PER_USER */
  readonly maxPerUser: number;
  /** WEBAUTHN_CHALLENGE_EXPIRY_DURATION: how long a passkey ceremony can be answered. */
  readonly challengeExpirySeconds: number;
  /** WEBAUTHN_USER_VERIFICATION (ours): what passkey ceremonies ask of the authenticator; GoTrue's `preferred`. */
  readonly userVerification: UserVerification;
}

/** MFA_*: which factors may be enrolled and verified, and their limits. */
export interface MfaPolicy {
  /** MFA_TOTP_ENROLL_ENABLED, MFA_TOTP_VERIFY_ENABLED */
  readonly totp: { readonly enroll: boolean; readonly verify: boolean };
  /** MFA_PHONE_ENROLL_ENABLED, MFA_PHONE_VERIFY_ENABLED */
  readonly phone: { readonly enroll: boolean; readonly verify: boolean };
  /** MFA_WEB_AUTHN_ENROLL_ENABLED, MFA_WEB_AUTHN_VERIFY_ENABLED */
  readonly webauthn: { readonly enroll: boolean; readonly verify: boolean };
  /** MFA_MAX_ENROLLED_FACTORS: factors of a user, verified or not. */
  readonly maxEnrolledFactors: number;
  /** MFA_MAX_VERIFIED_FACTORS */
  readonly maxVerifiedFactors: number;
  /** MFA_CHALLENGE_EXPIRY_DURATION: how long a challenge can be answered. */
  readonly challengeExpirySeconds: number;
  /** MFA_FACTOR_EXPIRY_DURATION: how long an unverified factor lives without a challenge. */
  readonly factorExpirySeconds: number;
  /** MFA_PHONE_OTP_LENGTH */
  readonly phoneOtpLength: number;
  /** MFA_PHONE_MAX_FREQUENCY: between two codes texted for one phone factor. */
  readonly phoneMaxFrequencySeconds: number;
  /** MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: challenges, and verifications, per client IP per minute. */
  readonly challengeAndVerifyPerMinute: number;
}

/** A number of events allowed per window, per client IP unless said otherwise. */
export interface RequestRate {
  readonly events: number;
  readonly perSeconds: number;
}

export interface RequestLimits {
  /** RATE_LIMIT_TOKEN_REFRESH: /token, every grant together. */
  readonly token: RequestRate;
  /** RATE_LIMIT_VERIFY: /verify, by link or by code. */
  readonly verify: RequestRate;
  /** RATE_LIMIT_OTP: each of /otp (with /magiclink), /recover, /resend, /signup and PUT /user, counted apart. */
  readonly otp: RequestRate;
  /** RATE_LIMIT_ANONYMOUS_USERS: anonymous sign-ins. */
  readonly anonymousSignIns: RequestRate;
  /**
   * RATE_LIMIT_PASSWORD_FAILURES (ours): failed password sign-ins per account (email or phone), whatever the
   * client; past it, that account's password grant is refused for the rest of the window.
   */
  readonly passwordFailures: RequestRate;
  /**
   * RATE_LIMIT_WRONG_CODES (ours): wrong codes one client may send to /verify, to any addresses; past it, its
   * /verify is refused for the rest of the window.
   */
  readonly wrongCodes: RequestRate;
  /** RATE_LIMIT_PASSKEY: passkey sign-ins begun (POST /passkeys/authentication/options). */
  readonly passkey: RequestRate;
  /** RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER: clients registering themselves. */
  readonly oauthClientRegistrations: RequestRate;
  /** RATE_LIMIT_SSO: single sign-ons begun (POST /sso). */
  readonly sso: RequestRate;
  /** SAML_RATE_LIMIT_ASSERTION: answers of identity providers posted to the ACS. */
  readonly samlAssertions: RequestRate;
  /** RATE_LIMIT_WEB3: Web3 sign-ins (POST /token?grant_type=web3), counted apart from the other grants. */
  readonly web3: RequestRate;
}

export interface EmailPolicy {
  /** EXTERNAL_EMAIL_MAGIC_LINK_ENABLED */
  readonly magicLinkEnabled: boolean;
  /** MAILER_SECURE_EMAIL_CHANGE_ENABLED: an email change needs both the old and the new address to confirm. */
  readonly secureEmailChange: boolean;
  /** MAILER_NOTIFICATIONS_*_ENABLED */
  /** MAILER_NOTIFICATIONS_*_ENABLED: which notifications of a change already made are sent. */
  readonly notifications: Readonly<Record<NotificationKind, boolean>>;
  /** RATE_LIMIT_EMAIL_SENT: emails of every kind, all instances together. */
  readonly sendLimit: { readonly events: number; readonly perSeconds: number };
}

export interface SmsPolicy {
  /**
   * SMS_TEST_OTP: E.164 numbers and the fixed code each gets instead of an SMS (accounts for app review), until
   * SMS_TEST_OTP_VALID_UNTIL when set.
   */
  readonly testOtps: Readonly<Record<string, string>>;
  readonly testOtpsValidUntil: Date | null;
  /** RATE_LIMIT_SMS_SENT: SMS of every kind, all instances together. */
  readonly sendLimit: { readonly events: number; readonly perSeconds: number };
}

export interface SignupPolicy {
  /** DISABLE_SIGNUP */
  readonly disabled: boolean;
  /** EXTERNAL_EMAIL_ENABLED */
  readonly emailEnabled: boolean;
  /** EXTERNAL_PHONE_ENABLED */
  readonly phoneEnabled: boolean;
  /** EXTERNAL_ANONYMOUS_USERS_ENABLED */
  readonly anonymousEnabled: boolean;
  /** MAILER_AUTOCONFIRM */
  readonly emailAutoconfirm: boolean;
  /**
   * MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS: a provider sign-in whose address the provider did not verify goes on
   * (the address stays unconfirmed, and a confirmation mail goes out) instead of waiting for the confirmation.
   */
  readonly allowUnverifiedEmailSignIns: boolean;
  /** SMS_AUTOCONFIRM */
  readonly phoneAutoconfirm: boolean;
}

export interface OtpPolicy {
  /** MAILER_OTP_LENGTH */
  readonly emailOtpLength: number;
  /** MAILER_OTP_EXP */
  readonly emailOtpExpSeconds: number;
  /** SMS_OTP_LENGTH */
  readonly smsOtpLength: number;
  /** SMS_OTP_EXP */
  readonly smsOtpExpSeconds: number;
  /** SMTP_MAX_FREQUENCY as it applies to signup confirmations and email changes. */
  readonly emailConfirmationFrequencySeconds: number;
  /** Between magic links, recovery emails and reauthentication nonces: 60 s unless SMTP_MAX_FREQUENCY is set. */
  readonly linkFrequencySeconds: number;
  /** SMS_MAX_FREQUENCY */
  readonly smsFrequencySeconds: number;
}
