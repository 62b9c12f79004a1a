import type { AuthPolicy } from "../policy.ts";

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object ? (T[K] extends readonly unknown[] ? T[K] : DeepPartial<T[K]>) : T[K];
};

/** Supabase's defaults, with email signups on and confirmations required; override what a test is about. */
export function testPolicy(overrides: DeepPartial<AuthPolicy> = {}): AuthPolicy {
  return {
    redirect: { siteUrl: "http://localhost:3000", allowList: [], ...overrides.redirect },
    apiExternalUrl: overrides.apiExternalUrl ?? "http://localhost:9999",
    accessToken: { expSeconds: 3600, issuer: "http://localhost:8081", ...overrides.accessToken },
    defaultAudience: overrides.defaultAudience ?? "authenticated",
    defaultRole: overrides.defaultRole ?? "authenticated",
    signup: {
      disabled: false,
      emailEnabled: true,
      phoneEnabled: true,
      anonymousEnabled: false,
      emailAutoconfirm: false,
      allowUnverifiedEmailSignIns: false,
      phoneAutoconfirm: false,
      ...overrides.signup,
    },
    password: { minLength: 6, requiredCharacters: [], pwnedFailClosed: false, ...overrides.password },
    refresh: { rotationEnabled: true, reuseIntervalSeconds: 10, ...overrides.refresh },
    otp: {
      emailOtpLength: 6,
      emailOtpExpSeconds: 86_400,
      smsOtpLength: 6,
      smsOtpExpSeconds: 60,
      emailConfirmationFrequencySeconds: 900,
      linkFrequencySeconds: 60,
      smsFrequencySeconds: 60,
      ...overrides.otp,
    },
    passwordChangeRequiresReauthentication: overrides.passwordChangeRequiresReauthentication ?? false,
    passwordChangeRequiresCurrentPassword: overrides.passwordChangeRequiresCurrentPassword ?? false,
    manualLinkingEnabled: overrides.manualLinkingEnabled ?? false,
    email: {
      magicLinkEnabled: true,
      secureEmailChange: true,
      ...overrides.email,
      notifications: {
        password_changed: false,
        email_changed: false,
        phone_changed: false,
        identity_linked: false,
        identity_unlinked: false,
        mfa_factor_enrolled: false,
        mfa_factor_unenrolled: false,
        ...overrides.email?.notifications,
      },
      sendLimit: { events: 30, perSeconds: 3600, ...overrides.email?.sendLimit },
    },
    sms: {
      // Whole values, not merged: DeepPartial would loosen them.
      testOtps: (overrides.sms?.testOtps as Record<string, string> | undefined) ?? {},
      testOtpsValidUntil: (overrides.sms?.testOtpsValidUntil as Date | null | undefined) ?? null,
      sendLimit: { events: 30, perSeconds: 3600, ...overrides.sms?.sendLimit },
    },
    adminRoles: overrides.adminRoles ?? ["service_role", "supabase_admin"],
    requestLimits: {
      token: { events: 150, perSeconds: 300, ...overrides.requestLimits?.token },
      verify: { events: 30, perSeconds: 300, ...overrides.requestLimits?.verify },
      otp: { events: 30, perSeconds: 300, ...overrides.requestLimits?.otp },
      anonymousSignIns: { events: 30, perSeconds: 3600, ...overrides.requestLimits?.anonymousSignIns },
      passwordFailures: { events: 20, perSeconds: 900, ...overrides.requestLimits?.passwordFailures },
      wrongCodes: { events: 10, perSeconds: 3600, ...overrides.requestLimits?.wrongCodes },
      passkey: { events: 30, perSeconds: 300, ...overrides.requestLimits?.passkey },
      oauthClientRegistrations: { events: 10, perSeconds: 300, ...overrides.requestLimits?.oauthClientRegistrations },
      sso: { events: 30, perSeconds: 300, ...overrides.requestLimits?.sso },
      samlAssertions: { events: 15, perSeconds: 300, ...overrides.requestLimits?.samlAssertions },
      web3: { events: 30, perSeconds: 300, ...overrides.requestLimits?.web3 },
    },
    mfa: {
      maxEnrolledFactors: 10,
      maxVerifiedFactors: 10,
      challengeExpirySeconds: 300,
      factorExpirySeconds: 300,
      phoneOtpLength: 6,
      phoneMaxFrequencySeconds: 60,
      challengeAndVerifyPerMinute: 15,
      ...(overrides.mfa as Partial<AuthPolicy["mfa"]> | undefined),
      totp: { enroll: true, verify: true, ...overrides.mfa?.totp },
      phone: { enroll: true, verify: true, ...overrides.mfa?.phone },
      webauthn: { enroll: true, verify: true, ...overrides.mfa?.webauthn },
    },
    sessions: {
      timeboxSeconds: null,
      inactivityTimeoutSeconds: null,
      allowLowAalSeconds: null,
      singlePerUser: false,
      ...overrides.sessions,
    },
    passkeys: {
      enabled: true,
      maxPerUser: 10,
      challengeExpirySeconds: 300,
      userVerification: "preferred",
      ...overrides.passkeys,
    },
    oauthServer: {
      enabled: true,
      allowDynamicRegistration: true,
      authorizationPath: "/oauth/consent",
      authorizationTtlSeconds: 600,
      defaultScope: "email",
      ...overrides.oauthServer,
    },
    saml: { enabled: true, relayStateValiditySeconds: 120, idpInitiatedEnabled: true, ...overrides.saml },
    web3: {
      solana: { enabled: true, maximumValiditySeconds: 600, ...overrides.web3?.solana },
      ethereum: { enabled: true, maximumValiditySeconds: 600, ...overrides.web3?.ethereum },
    },
    customProviders: { enabled: true, maxProviders: null, ...overrides.customProviders },
    cleanup: { outboxRetentionSeconds: 7 * 24 * 3600, ...overrides.cleanup },
  };
}
export type { DeepPartial };
