import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/index.ts";
import { production } from "./support.ts";

describe("toPolicy", () => {
  it("maps every setting the domain reads", () => {
    const config = production({
      AUTH_JWT_EXP: "900",
      AUTH_JWT_ISSUER: "https://issuer.example.com",
      AUTH_JWT_AUD: "app-users",
      AUTH_JWT_DEFAULT_GROUP_NAME: "member",
      AUTH_DISABLE_SIGNUP: "true",
      AUTH_EXTERNAL_EMAIL_ENABLED: "false",
      AUTH_EXTERNAL_PHONE_ENABLED: "true",
      AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
      AUTH_MAILER_AUTOCONFIRM: "true",
      AUTH_SMS_AUTOCONFIRM: "true",
      AUTH_PASSWORD_MIN_LENGTH: "10",
      AUTH_PASSWORD_REQUIRED_CHARACTERS: "abc:123",
      AUTH_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: "false",
      AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "30s",
      AUTH_MAILER_OTP_LENGTH: "8",
      AUTH_MAILER_OTP_EXP: "1h",
      AUTH_SMS_OTP_LENGTH: "7",
      AUTH_SMS_OTP_EXP: "2m",
      AUTH_SMTP_MAX_FREQUENCY: "45s",
      AUTH_SMS_MAX_FREQUENCY: "20",
      AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true",
      AUTH_SECURITY_MANUAL_LINKING_ENABLED: "true",
      AUTH_DB_SECRET: "7d1c9e3b5a2f4c6e8d0b1a3c5e7f9b2d4a6c8e0f",
      AUTH_MFA_TOTP_VERIFY_ENABLED: "false",
      AUTH_MFA_PHONE_ENROLL_ENABLED: "true",
      AUTH_MFA_MAX_ENROLLED_FACTORS: "4",
      AUTH_MFA_MAX_VERIFIED_FACTORS: "3",
      AUTH_MFA_CHALLENGE_EXPIRY_DURATION: "600",
      AUTH_MFA_FACTOR_EXPIRY_DURATION: "10m",
      AUTH_MFA_PHONE_OTP_LENGTH: "8",
      AUTH_MFA_PHONE_MAX_FREQUENCY: "30s",
      AUTH_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "5",
      AUTH_URI_ALLOW_LIST: "https://app.example.com/**, myapp://callback",
      AUTH_EXTERNAL_EMAIL_MAGIC_LINK_ENABLED: "false",
      AUTH_MAILER_SECURE_EMAIL_CHANGE_ENABLED: "false",
      AUTH_MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED: "true",
      AUTH_MAILER_NOTIFICATIONS_PHONE_CHANGED_ENABLED: "true",
      GOTRUE_MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED: "true",
      AUTH_RATE_LIMIT_EMAIL_SENT: "10/1m",
      AUTH_RATE_LIMIT_SMS_SENT: "5",
      AUTH_RATE_LIMIT_ANONYMOUS_USERS: "12",
      AUTH_RATE_LIMIT_TOKEN_REFRESH: "90",
      AUTH_RATE_LIMIT_VERIFY: "20",
      AUTH_RATE_LIMIT_OTP: "7",
      AUTH_RATE_LIMIT_PASSWORD_FAILURES: "5",
      AUTH_RATE_LIMIT_WRONG_CODES: "40/10m",
      AUTH_SMS_TEST_OTP: "+1 555 010 0000:123456, 15550100001:654321",
      AUTH_SMS_TEST_OTP_VALID_UNTIL: "2030-01-01T00:00:00Z",
      AUTH_JWT_ADMIN_ROLES: "service_role, ops",
    });
    expect(toPolicy(config)).toEqual({
      redirect: { siteUrl: "https://app.example.com", allowList: ["https://app.example.com/**", "myapp://callback"] },
      apiExternalUrl: "https://auth.example.com",
      accessToken: { expSeconds: 900, issuer: "https://issuer.example.com" },
      defaultAudience: "app-users",
      defaultRole: "member",
      signup: {
        disabled: true,
        emailEnabled: false,
        phoneEnabled: true,
        anonymousEnabled: true,
        emailAutoconfirm: true,
        allowUnverifiedEmailSignIns: false,
        phoneAutoconfirm: true,
      },
      password: { minLength: 10, requiredCharacters: ["abc", "123"], pwnedFailClosed: false },
      refresh: { rotationEnabled: false, reuseIntervalSeconds: 30 },
      otp: {
        emailOtpLength: 8,
        emailOtpExpSeconds: 3600,
        smsOtpLength: 7,
        smsOtpExpSeconds: 120,
        emailConfirmationFrequencySeconds: 45,
        linkFrequencySeconds: 45,
        smsFrequencySeconds: 20,
      },
      passwordChangeRequiresReauthentication: true,
      passwordChangeRequiresCurrentPassword: false,
      manualLinkingEnabled: true,
      email: {
        magicLinkEnabled: false,
        secureEmailChange: false,
        notifications: {
          password_changed: true,
          email_changed: false,
          phone_changed: true,
          identity_linked: false,
          identity_unlinked: false,
          mfa_factor_enrolled: true,
          mfa_factor_unenrolled: false,
        },
        sendLimit: { events: 10, perSeconds: 60 },
      },
      sms: {
        testOtps: { "+15550100000": "123456", "+15550100001": "654321" },
        testOtpsValidUntil: new Date("2030-01-01T00:00:00Z"),
        sendLimit: { events: 5, perSeconds: 3600 },
      },
      adminRoles: ["service_role", "ops"],
      requestLimits: {
        token: { events: 90, perSeconds: 300 },
        verify: { events: 20, perSeconds: 300 },
        otp: { events: 7, perSeconds: 300 },
        anonymousSignIns: { events: 12, perSeconds: 3600 },
        passwordFailures: { events: 5, perSeconds: 900 },
        wrongCodes: { events: 40, perSeconds: 600 },
        passkey: { events: 30, perSeconds: 300 },
        oauthClientRegistrations: { events: 10, perSeconds: 300 },
        sso: { events: 30, perSeconds: 300 },
        samlAssertions: { events: 15, perSeconds: 300 },
        web3: { events: 30, perSeconds: 300 },
      },
      mfa: {
        totp: { enroll: true, verify: false },
        phone: { enroll: true, verify: false },
        webauthn: { enroll: false, verify: false },
        maxEnrolledFactors: 4,
        maxVerifiedFactors: 3,
        challengeExpirySeconds: 600,
        factorExpirySeconds: 600,
        phoneOtpLength: 8,
        phoneMaxFrequencySeconds: 30,
        challengeAndVerifyPerMinute: 5,
      },
      sessions: {
        timeboxSeconds: null,
        inactivityTimeoutSeconds: null,
        allowLowAalSeconds: null,
        singlePerUser: false,
      },
      passkeys: { enabled: false, maxPerUser: 10, challengeExpirySeconds: 300, userVerification: "preferred" },
      saml: { enabled: false, relayStateValiditySeconds: 120, idpInitiatedEnabled: true },
      customProviders: { enabled: true, maxProviders: null },
      web3: {
        solana: { enabled: false, maximumValiditySeconds: 600 },
        ethereum: { enabled: false, maximumValiditySeconds: 600 },
      },
      cleanup: { outboxRetentionSeconds: 604_800 },
      oauthServer: {
        enabled: false,
        allowDynamicRegistration: false,
        authorizationPath: null,
        authorizationTtlSeconds: 600,
        defaultScope: "email",
      },
    });
  });

  it("raises MFA durations below 300 seconds to 300, as GoTrue does, and keeps TOTP off in production without a key of its own", () => {
    const policy = toPolicy(
      production({ AUTH_MFA_CHALLENGE_EXPIRY_DURATION: "60", AUTH_MFA_FACTOR_EXPIRY_DURATION: "1m" }),
    );
    expect(policy.mfa).toMatchObject({ challengeExpirySeconds: 300, factorExpirySeconds: 300 });
    expect(policy.mfa.totp).toEqual({ enroll: false, verify: false });
    expect(toPolicy(production({ AUTH_DB_SECRET: "7d1c9e3b5a2f4c6e8d0b1a3c5e7f9b2d" })).mfa.totp).toEqual({
      enroll: true,
      verify: true,
    });
  });

  it("uses the spec's 900 s for confirmations, 60 s for links, Supabase's per-address limits and API_EXTERNAL_URL as issuer by default", () => {
    const policy = toPolicy(production());
    expect(policy.otp.emailConfirmationFrequencySeconds).toBe(900);
    expect(policy.otp.linkFrequencySeconds).toBe(60);
    expect(policy.email.sendLimit).toEqual({ events: 30, perSeconds: 3600 });
    expect(policy.adminRoles).toEqual(["service_role", "supabase_admin"]);
    expect(policy.requestLimits).toEqual({
      token: { events: 150, perSeconds: 300 },
      verify: { events: 30, perSeconds: 300 },
      otp: { events: 30, perSeconds: 300 },
      anonymousSignIns: { events: 30, perSeconds: 3600 },
      passwordFailures: { events: 20, perSeconds: 900 },
      wrongCodes: { events: 10, perSeconds: 3600 },
      passkey: { events: 30, perSeconds: 300 },
      oauthClientRegistrations: { events: 10, perSeconds: 300 },
      sso: { events: 30, perSeconds: 300 },
      samlAssertions: { events: 15, perSeconds: 300 },
      web3: { events: 30, perSeconds: 300 },
    });
    expect(policy.accessToken.issuer).toBe("https://auth.example.com");
    expect(policy.refresh).toEqual({ rotationEnabled: true, reuseIntervalSeconds: 10 });
  });
});
