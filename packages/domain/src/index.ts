// The domain's public surface: the Auth facade and the words of its API, the ports adapters implement, and the few
// pure rules other packages apply too (reading durations, normalising addresses). Modules inside the domain import
// each other directly, never through here.

export { type Auth, createAuth, type UseCases } from "./auth.ts";
// The words every use case's input or result may use.
export type { AdminPrincipal, LinkRequest, Principal, RequestContext, SessionGrant } from "./deps.ts";
export { AuthError, type AuthErrorOptions, type ErrorCase, type ErrorCode, isAuthError, messages } from "./errors.ts";
// The model, as adapters store it and the HTTP layer presents it.
export { AUDIT_ACTIONS, type AuditAction, type AuditEntry, auditLogType } from "./model/audit.ts";
export { bannedUntil } from "./model/ban.ts";
export {
  CUSTOM_PROVIDER_PREFIX,
  CUSTOM_PROVIDER_TYPES,
  type CustomProvider,
  type CustomProviderType,
  type OidcDiscovery,
} from "./model/custom-provider.ts";
export { normalizeEmail } from "./model/email.ts";
export { amrMethodOf, type Factor, type FactorStatus, type FactorType, type MfaChallenge } from "./model/factor.ts";
export type { FlowState } from "./model/flow-state.ts";
export { parseGoDuration } from "./model/go-duration.ts";
export { hookError, readHookAnswer } from "./model/hook-answer.ts";
export { type Identity, identityEmail } from "./model/identity.ts";
export {
  type AuthEmailKind,
  EMAIL_ACTION_TYPES,
  type LinkEmail,
  type LinkFields,
  type LinkType,
  type NotificationKind,
} from "./model/mail.ts";
export type { Metadata } from "./model/metadata.ts";
export {
  OAUTH_SCOPES,
  type OAuthAuthorization,
  type OAuthAuthorizationStatus,
  type OAuthConsent,
} from "./model/oauth-authorization.ts";
export type {
  OAuthClient,
  OAuthClientType,
  OAuthGrantType,
  TokenEndpointAuthMethod,
} from "./model/oauth-client.ts";
export { OAUTH_FLOW_LIFETIME_SECONDS } from "./model/oauth-flow.ts";
export { oldestFirst } from "./model/oldest-first.ts";
export {
  type CodeChallengeMethod,
  EMAIL_VERIFY_TYPES,
  type OneTimeToken,
  type OneTimeTokenKind,
  PHONE_VERIFY_TYPES,
  PKCE_PREFIX,
  type VerifyType,
} from "./model/one-time-token.ts";
export type { OutboxEntry } from "./model/outbox.ts";
export { MAX_PASSWORD_LENGTH, parseRequiredCharacters } from "./model/password-policy.ts";
export { normalizePhone } from "./model/phone.ts";
export { PROFILE_TEXT_CLAIMS } from "./model/provider-profile.ts";
export { chooseRedirect } from "./model/redirect.ts";
export type { RefreshToken } from "./model/refresh-token.ts";
export type { Aal, AmrEntry, AuthMethod, LogoutScope, Session } from "./model/session.ts";
export {
  SAML_NAME_ID_FORMATS,
  type SamlAssertion,
  type SamlAttribute,
  type SamlAttributeMapping,
  type SamlAttributeRule,
  type SamlIdpMetadata,
  type SamlNameIdFormat,
  type SamlProviderSettings,
  type SamlRelayState,
  type SsoProvider,
} from "./model/sso-provider.ts";
export { optionalTimestamp, timestamp } from "./model/timestamp.ts";
export { confirmedAt, hasVerifiedFactor, type User } from "./model/user.ts";
export { presentFactor, presentUser } from "./model/user-json.ts";
export { isUuid } from "./model/uuid.ts";
export {
  type CredentialDescriptor,
  counterMayFollow,
  type Passkey,
  type PasskeyCeremony,
  type UserVerification,
  type WebAuthnChallenge,
  type WebAuthnFactorChallenge,
  type WebAuthnKey,
} from "./model/webauthn.ts";
export type {
  AuthPolicy,
  EmailPolicy,
  OAuthServerPolicy,
  OtpPolicy,
  PasskeyPolicy,
  RequestLimits,
  RequestRate,
  SignupPolicy,
  SmsPolicy,
} from "./policy.ts";
export { HOOK_NAMES } from "./ports/hooks.ts";
export type * from "./ports/index.ts";
export { OAuthProviderFailure } from "./ports/oauth-provider.ts";
export type { RefreshSessionInput } from "./services/refresh-session.ts";
/** The digest a refresh token is stored under: what an import of another system's tokens stores. */
export { refreshTokenDigest } from "./services/tokens/digests.ts";
// The use cases' inputs and results.
export type { CheckCaptchaInput } from "./use-cases/abuse/captcha.ts";
export type { AdminCreateUserInput } from "./use-cases/admin/create-user.ts";
export type { AdminDeleteUserInput } from "./use-cases/admin/delete-user.ts";
export type { GeneratedLink, GenerateLinkInput } from "./use-cases/admin/generate-link.ts";
export type { InviteUserInput } from "./use-cases/admin/invite-user.ts";
export type { GenerateLinkType } from "./use-cases/admin/link-decision.ts";
export type { AdminListAuditInput, AuditPage } from "./use-cases/admin/list-audit.ts";
export type { AdminListUsersInput, UserPage } from "./use-cases/admin/list-users.ts";
export type { AdminUpdateUserInput } from "./use-cases/admin/update-user.ts";
export type { CustomProviderInput } from "./use-cases/custom-providers/admin.ts";
export type {
  ClaimedMessage,
  DeliveryFailure,
  DeliveryOutcome,
} from "./use-cases/delivery/deliver-message.ts";
export {
  type DeliveryReport,
  OUTBOX_LEASE_SECONDS,
  OUTBOX_RENEWAL_SECONDS,
  type OutboxDepth,
} from "./use-cases/delivery/outbox.ts";
export type { ResendInput } from "./use-cases/delivery/resend.ts";
export type { CleanUpOptions, CleanUpPass } from "./use-cases/maintenance/clean-up-stale-rows.ts";
export type { AdminDeleteFactorInput, AdminUpdateFactorInput } from "./use-cases/mfa/admin-factors.ts";
export type { ChallengeFactorInput, FactorChallenge } from "./use-cases/mfa/challenge-factor.ts";
export type { EnrolledFactor, EnrollFactorInput } from "./use-cases/mfa/enroll-factor.ts";
export type { UnenrollFactorInput } from "./use-cases/mfa/unenroll-factor.ts";
export type { VerifyFactorInput } from "./use-cases/mfa/verify-factor.ts";
export type { CompleteOAuthInput, CompleteOAuthResult } from "./use-cases/oauth/complete-sign-in.ts";
export type { StartOAuthInput } from "./use-cases/oauth/start-sign-in.ts";
export type { RecoverPasswordInput } from "./use-cases/recovery/recover-password.ts";
export type { AuthenticateInput } from "./use-cases/sessions/authenticate.ts";
export type { SignOutInput } from "./use-cases/sessions/sign-out.ts";
export type { ExchangeAuthCodeInput } from "./use-cases/sign-in/exchange-auth-code.ts";
export type { SendMagicLinkInput } from "./use-cases/sign-in/send-magic-link.ts";
export type { SendSmsOtpInput } from "./use-cases/sign-in/send-sms-otp.ts";
export type { SignInWithPasswordInput } from "./use-cases/sign-in/sign-in-with-password.ts";
export type { SignUpInput, SignUpResult } from "./use-cases/sign-up/sign-up.ts";
export type { CompleteSamlInput, CompleteSamlResult } from "./use-cases/sso/complete-saml.ts";
export type { SsoProviderInput } from "./use-cases/sso/providers.ts";
export type { StartSsoInput } from "./use-cases/sso/start-sso.ts";
export type { UpdateUserInput } from "./use-cases/user/update-user.ts";
export type { VerifyInput, VerifyResult } from "./use-cases/verification/verify.ts";
