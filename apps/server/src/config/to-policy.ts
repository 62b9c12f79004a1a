import type { AuthPolicy } from "@latchkey/domain";
import type { Config } from "./config.ts";

/** The slice of the configuration the domain reads. */
export function toPolicy(config: Config): AuthPolicy {
  return {
    redirect: { siteUrl: config.siteUrl, allowList: config.uriAllowList },
    apiExternalUrl: config.api.externalUrl,
    accessToken: { expSeconds: config.jwt.expSeconds, issuer: config.jwt.issuer },
    defaultAudience: config.jwt.aud,
    defaultRole: config.jwt.defaultGroupName,
    signup: {
      disabled: config.signup.disabled,
      emailEnabled: config.signup.emailEnabled,
      phoneEnabled: config.signup.phoneEnabled,
      anonymousEnabled: config.signup.anonymousEnabled,
      emailAutoconfirm: config.mailer.autoconfirm,
      allowUnverifiedEmailSignIns: config.mailer.allowUnverifiedEmailSignIns,
      phoneAutoconfirm: config.sms.autoconfirm,
    },
    password: {
      minLength: config.password.minLength,
      requiredCharacters: config.password.requiredCharacters,
      pwnedFailClosed: config.password.hibpFailClosed,
    },
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
      linkFrequencySeconds: config.mailer.linkFrequencySeconds,
      smsFrequencySeconds: config.sms.maxFrequencySeconds,
    },
    passwordChangeRequiresReauthentication: config.security.updatePasswordRequireReauthentication,
    passwordChangeRequiresCurrentPassword: config.security.updatePasswordRequireCurrentPassword,
    manualLinkingEnabled: config.security.manualLinkingEnabled,
    email: {
      magicLinkEnabled: config.signup.emailMagicLinkEnabled,
      secureEmailChange: config.mailer.secureEmailChangeEnabled,
      notifications: config.mailer.notifications,
      sendLimit: config.rateLimit.emailSent,
    },
    sms: {
      testOtps: config.sms.testOtp,
      testOtpsValidUntil: config.sms.testOtpValidUntil ?? null,
      sendLimit: config.rateLimit.smsSent,
    },
    adminRoles: config.jwt.adminRoles,
    requestLimits: requestLimits(config),
    mfa: mfaPolicy(config),
    sessions: sessionLimits(config),
    oauthServer: { ...config.oauthServer, authorizationPath: config.oauthServer.authorizationPath ?? null },
    passkeys: {
      enabled: config.passkey.enabled,
      maxPerUser: config.passkey.maxPerUser,
      challengeExpirySeconds: config.webauthn.challengeExpirySeconds,
      userVerification: config.webauthn.userVerification,
    },
    saml: {
      enabled: config.saml.enabled,
      relayStateValiditySeconds: config.saml.relayStateValiditySeconds,
      idpInitiatedEnabled: config.saml.idpInitiatedEnabled,
    },
    web3: web3Policy(config),
    customProviders: {
      enabled: config.customOAuth.enabled,
      maxProviders: config.customOAuth.maxProviders === 0 ? null : config.customOAuth.maxProviders,
    },
    cleanup: { outboxRetentionSeconds: config.db.cleanupOutboxRetentionSeconds },
  };
}

/** RATE_LIMIT_* and SAML_RATE_LIMIT_ASSERTION: what one client may ask per window, route group by route group. */
function requestLimits(config: Config): AuthPolicy["requestLimits"] {
  return {
    token: config.rateLimit.tokenRefresh,
    verify: config.rateLimit.verify,
    otp: config.rateLimit.otp,
    anonymousSignIns: config.rateLimit.anonymousUsers,
    passwordFailures: config.rateLimit.passwordFailures,
    wrongCodes: config.rateLimit.wrongCodes,
    passkey: config.rateLimit.passkey,
    oauthClientRegistrations: config.rateLimit.oauthDynamicClientRegister,
    sso: config.rateLimit.sso,
    samlAssertions: config.saml.rateLimitAssertion,
    web3: config.rateLimit.web3,
  };
}

/** MFA_*: which factors may be enrolled and verified, and their limits. */
function mfaPolicy(config: Config): AuthPolicy["mfa"] {
  return {
    totp: { enroll: config.mfa.totpEnrollEnabled, verify: config.mfa.totpVerifyEnabled },
    phone: { enroll: config.mfa.phoneEnrollEnabled, verify: config.mfa.phoneVerifyEnabled },
    webauthn: { enroll: config.mfa.webAuthnEnrollEnabled, verify: config.mfa.webAuthnVerifyEnabled },
    maxEnrolledFactors: config.mfa.maxEnrolledFactors,
    maxVerifiedFactors: config.mfa.maxVerifiedFactors,
    challengeExpirySeconds: config.mfa.challengeExpirySeconds,
    factorExpirySeconds: config.mfa.factorExpirySeconds,
    phoneOtpLength: config.mfa.phoneOtpLength,
    phoneMaxFrequencySeconds: config.mfa.phoneMaxFrequencySeconds,
    challengeAndVerifyPerMinute: config.mfa.rateLimitChallengeAndVerify,
  };
}

/** EXTERNAL_WEB3_*: each chain's switch and maximum validity. */
function web3Policy({ web3 }: Config): AuthPolicy["web3"] {
  return {
    solana: { enabled: web3.solanaEnabled, maximumValiditySeconds: web3.solanaMaximumValiditySeconds },
    ethereum: { enabled: web3.ethereumEnabled, maximumValiditySeconds: web3.ethereumMaximumValiditySeconds },
  };
}

/** SESSIONS_*: GoTrue reads 0 as no limit. */
function sessionLimits(config: Config): AuthPolicy["sessions"] {
  return {
    timeboxSeconds: config.sessions.timeboxSeconds || null,
    inactivityTimeoutSeconds: config.sessions.inactivityTimeoutSeconds || null,
    allowLowAalSeconds: config.sessions.allowLowAalSeconds || null,
    singlePerUser: config.sessions.singlePerUser,
  };
}
