import type { AccessTokenPolicy } from "./model/access-token-claims.ts";
import type { PasswordPolicy } from "./model/password-policy.ts";
import type { RefreshPolicy } from "./model/refresh-token.ts";

/** The slice of configuration the domain reads; durations carry their unit. */
export interface AuthPolicy {
  /** SITE_URL: where links lead when no other target is allowed. */
  readonly siteUrl: string;
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
  /** SMS_MAX_FREQUENCY */
  readonly smsFrequencySeconds: number;
}
