export { createAuth, type Auth } from "./auth.ts";
export { AuthError, isAuthError, messages, type AuthErrorOptions, type ErrorCase, type ErrorCode } from "./errors.ts";
export type { AuthPolicy, OtpPolicy, RequestLimits, RequestRate, SignupPolicy } from "./policy.ts";
export type * from "./ports/index.ts";

export { buildAccessTokenClaims, readTokenSubject } from "./model/access-token-claims.ts";
export type { AccessTokenClaims, AccessTokenPolicy, TokenSubject } from "./model/access-token-claims.ts";
export { bannedUntil, parseBanDuration, type BanDuration } from "./model/ban.ts";
export { normalizeEmail } from "./model/email.ts";
export { parseGoDuration } from "./model/go-duration.ts";
export { identityEmail, providersOf, type Identity } from "./model/identity.ts";
export { mergeMetadata, type Metadata } from "./model/metadata.ts";
export type { OneTimeToken, OneTimeTokenKind } from "./model/one-time-token.ts";
export {
  assertPasswordAcceptable,
  isVerifiablePassword,
  MAX_PASSWORD_LENGTH,
  parseRequiredCharacters,
  type PasswordPolicy,
  type WeakPasswordReason,
} from "./model/password-policy.ts";
export { normalizePhone } from "./model/phone.ts";
export { decideRefresh, type RefreshDecision, type RefreshPolicy, type RefreshToken } from "./model/refresh-token.ts";
export type { Aal, AmrEntry, AuthMethod, LogoutScope, Session } from "./model/session.ts";
export { confirmedAt, type EmailChangeSide, isBanned, isEmailConfirmed, isPhoneConfirmed, type User } from "./model/user.ts";
export { isUuid } from "./model/uuid.ts";

export type { LinkRequest, Principal, RequestContext, SessionGrant } from "./use-cases/deps.ts";
export type { AuthenticateInput } from "./use-cases/sessions/authenticate.ts";
export type { SignUpInput, SignUpResult } from "./use-cases/sign-up/sign-up.ts";
export type { SignInWithPasswordInput } from "./use-cases/sign-in/sign-in-with-password.ts";
export type { RefreshSessionInput } from "./use-cases/sessions/refresh-session.ts";
export type { UpdateUserInput } from "./use-cases/user/update-user.ts";
export type { SignOutInput } from "./use-cases/sessions/sign-out.ts";
export type { DeliveryReport } from "./use-cases/delivery/outbox.ts";
export { nextAttemptAfterFailure, type OutboundMessage, type OutboxEntry } from "./model/outbox.ts";
export type { AuthEmailKind, LinkEmail, LinkFields, LinkType, NotificationKind } from "./ports/mailer.ts";
export { auditLogType, type AuditAction, type AuditEntry } from "./model/audit.ts";
export { chooseRedirect, isAllowedRedirect, type RedirectPolicy } from "./model/redirect.ts";
export type { AdminPrincipal } from "./use-cases/sessions/authorize-admin.ts";
export type { AdminCreateUserInput } from "./use-cases/admin/create-user.ts";
export type { AdminDeleteUserInput } from "./use-cases/admin/delete-user.ts";
export type { GeneratedLink, GenerateLinkInput, GenerateLinkType } from "./use-cases/admin/generate-link.ts";
export type { AdminListAuditInput, AuditPage } from "./use-cases/admin/list-audit.ts";
export type { AdminListUsersInput, UserPage } from "./use-cases/admin/list-users.ts";
export type { AdminUpdateUserInput } from "./use-cases/admin/update-user.ts";
export type { ExchangeAuthCodeInput } from "./use-cases/sign-in/exchange-auth-code.ts";
export type { InviteUserInput } from "./use-cases/admin/invite-user.ts";
export type { RecoverPasswordInput } from "./use-cases/recovery/recover-password.ts";
export type { ResendInput } from "./use-cases/delivery/resend.ts";
export type { SendMagicLinkInput } from "./use-cases/sign-in/send-magic-link.ts";
export type { SendSmsOtpInput } from "./use-cases/sign-in/send-sms-otp.ts";
export type { VerifyInput, VerifyResult } from "./use-cases/verification/verify.ts";
export type { EmailPolicy, SmsPolicy } from "./policy.ts";
export {
  EMAIL_VERIFY_TYPES,
  kindsVerifiedBy,
  MAX_FAILED_ATTEMPTS,
  PHONE_VERIFY_TYPES,
  PKCE_PREFIX,
  type CodeChallengeMethod,
  type VerifyType,
} from "./model/one-time-token.ts";
export { FLOW_STATE_LIFETIME_SECONDS, type FlowState } from "./model/flow-state.ts";
export { readPkceChallenge, verifierMatches, type PkceChallenge } from "./model/pkce.ts";
