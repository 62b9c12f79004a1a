import type { AuthPolicy } from "@latchkey/domain";
import type { Config } from "./config.ts";

/** The slice of the configuration the domain reads. */
export function toPolicy(config: Config): AuthPolicy {
  return {
    siteUrl: config.siteUrl,
    accessToken: { expSeconds: config.jwt.expSeconds, issuer: config.jwt.issuer },
    defaultAudience: config.jwt.aud,
    defaultRole: config.jwt.defaultGroupName,
    signup: {
      disabled: config.signup.disabled,
      emailEnabled: config.signup.emailEnabled,
      phoneEnabled: config.signup.phoneEnabled,
      anonymousEnabled: config.signup.anonymousEnabled,
      emailAutoconfirm: config.mailer.autoconfirm,
      phoneAutoconfirm: config.sms.autoconfirm,
    },
    password: config.password,
    refresh: {
      rotationEnabled: config.security.refreshTokenRotationEnabled,
      reuseIntervalSeconds: config.security.refreshTokenReuseIntervalSeconds,
    },
    otp: {
      emailOtpLength: config.mailer.otpLength,
      emailOtpExpSeconds: config.mailer.otpExpSeconds,
      smsOtpLength: config.sms.otpLength,
      smsOtpExpSeconds: config.sms.otpExpSeconds,
      emailConfirmationFrequencySeconds: config.mailer.confirmationFrequencySeconds,
      smsFrequencySeconds: config.sms.maxFrequencySeconds,
    },
    passwordChangeRequiresReauthentication: config.security.updatePasswordRequireReauthentication,
  };
}
