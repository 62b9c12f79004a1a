import { describe, expect, it } from "vitest";
import { production } from "./support.ts";

describe("defaults, with only the required production settings", () => {
  const config = production();

  it("uses the spec's defaults for the API, database, logs and tracing (off)", () => {
    expect(config.api).toEqual({
      host: undefined,
      port: 8081,
      externalUrl: "https://auth.example.com",
      requestIdHeader: undefined,
      maxRequestDurationSeconds: 30,
      shutdownDrainSeconds: 10,
      readinessDependencies: [],
    });
    expect(config.db).toEqual({
      driver: "postgres",
      url: "postgres://latchkey:db-password-9f3k@db.internal:5432/latchkey",
      embeddedDataDir: undefined,
      maxPoolSize: 0,
      startupWaitSeconds: 30,
      namespace: "",
      secret: undefined,
      cleanupEnabled: false,
      cleanupIntervalSeconds: 60,
      cleanupOutboxRetentionSeconds: 604_800,
    });
    expect(config.log).toEqual({ level: "info", file: undefined });
    expect(config.tracing).toEqual({
      enabled: false,
      exporter: "opentelemetry",
      protocol: "http/protobuf",
      tracesProtocol: undefined,
      debug: false,
    });
    expect(config.uriAllowList).toEqual([]);
  });

  it("uses Supabase's JWT defaults, and API_EXTERNAL_URL as the issuer", () => {
    expect(config.jwt).toEqual({
      secret: "0f8e2a7c5b9d4e1f3a6c8b0d2e4f6a8c0b2d4f6e8a0c2e4f",
      expSeconds: 3600,
      aud: "authenticated",
      issuer: "https://auth.example.com",
      adminRoles: ["service_role", "supabase_admin"],
      defaultGroupName: "authenticated",
      keys: undefined,
      keyId: undefined,
      validMethods: ["HS256"],
    });
  });

  it("enables email sign-ups and magic links, and leaves phone and anonymous sign-ins off", () => {
    expect(config.signup).toEqual({
      disabled: false,
      emailEnabled: true,
      emailMagicLinkEnabled: true,
      phoneEnabled: false,
      anonymousEnabled: false,
    });
  });

  it("rotates refresh tokens and lets the previous one be reused for 10 seconds", () => {
    expect(config.security).toEqual({
      refreshTokenRotationEnabled: true,
      refreshTokenReuseIntervalSeconds: 10,
      updatePasswordRequireReauthentication: false,
      updatePasswordRequireCurrentPassword: false,
      manualLinkingEnabled: false,
      sbForwardedForEnabled: false,
      encryptionKeyId: undefined,
      encryptionKey: undefined,
      decryptionKeys: new Map(),
    });
  });

  it("asks for passwords of 6 characters with no required character sets, and no leaked-password check", () => {
    expect(config.password).toEqual({
      minLength: 6,
      requiredCharacters: [],
      hibpEnabled: false,
      hibpFailClosed: false,
      hibpUserAgent: "https://github.com/supabase/gotrue",
      hibpUrl: "https://api.pwnedpasswords.com",
      hibpBloomEnabled: false,
      hibpBloomItems: 100_000,
      hibpBloomFalsePositives: 0.0000099,
    });
  });

  it("sends confirmations every 900 s but magic links and recoveries every 60 s", () => {
    expect(config.mailer.confirmationFrequencySeconds).toBe(900);
    expect(config.mailer.linkFrequencySeconds).toBe(60);
  });

  it("uses Supabase's email OTP defaults and /verify for every link", () => {
    expect(config.mailer).toMatchObject({
      autoconfirm: false,
      otpExpSeconds: 86_400,
      otpLength: 6,
      secureEmailChangeEnabled: true,
      urlPaths: { invite: "/verify", confirmation: "/verify", recovery: "/verify", email_change: "/verify" },
    });
    expect(Object.values(config.mailer.templates).every((url) => url === undefined)).toBe(true);
    expect(Object.values(config.mailer.notifications).every((enabled) => !enabled)).toBe(true);
  });

  it("uses the spec's email subjects", () => {
    expect(config.mailer.subjects).toEqual({
      invite: "You've been invited",
      confirmation: "Confirm your email address",
      recovery: "Reset your password",
      magic_link: "Your sign-in link",
      email_change: "Confirm your new email address",
      reauthentication: "{{ .Token }} is your verification code",
      password_changed: "Your password was changed",
      email_changed: "Your email address was changed",
      phone_changed: "Your phone number was changed",
      identity_linked: "A new sign-in method was linked to your account",
      identity_unlinked: "A sign-in method was removed from your account",
      mfa_factor_enrolled: "A new verification method was added to your account",
      mfa_factor_unenrolled: "A verification method was removed from your account",
    });
  });

  it("sends mail from the admin address, named after it", () => {
    expect(config.smtp).toEqual({
      host: "smtp.example.com",
      port: 587,
      user: undefined,
      pass: undefined,
      adminEmail: "no-reply@example.com",
      senderName: "no-reply@example.com",
    });
  });

  it("uses Supabase's SMS defaults, without a provider", () => {
    expect(config.sms).toMatchObject({
      provider: undefined,
      apiUrl: undefined,
      autoconfirm: false,
      maxFrequencySeconds: 60,
      otpExpSeconds: 60,
      otpLength: 6,
      template: "Your code is {{ .Code }}",
      mfaTemplate: "Your code is {{ .Code }}",
      testOtp: {},
      testOtpValidUntil: undefined,
    });
  });

  it("uses Supabase's rate limits", () => {
    expect(config.rateLimit).toEqual({
      header: undefined,
      // Ours: the header's last address is the one a proxy added.
      headerTrustedProxies: 1,
      emailSent: { events: 30, perSeconds: 3600 },
      smsSent: { events: 30, perSeconds: 3600 },
      verify: { events: 30, perSeconds: 300 },
      tokenRefresh: { events: 150, perSeconds: 300 },
      otp: { events: 30, perSeconds: 300 },
      anonymousUsers: { events: 30, perSeconds: 3600 },
      // Ours: failed password sign-ins per account.
      passwordFailures: { events: 20, perSeconds: 900 },
      // Ours: wrong codes per client at /verify.
      wrongCodes: { events: 10, perSeconds: 3600 },
      oauthDynamicClientRegister: { events: 10, perSeconds: 300 },
      passkey: { events: 30, perSeconds: 300 },
      sso: { events: 30, perSeconds: 300 },
      web3: { events: 30, perSeconds: 300 },
      // In memory, per instance, until REDIS_URL is set.
      redisUrl: undefined,
    });
  });

  it("is the production profile, frozen all the way down", () => {
    expect(config.profile).toBe("production");
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.jwt.adminRoles)).toBe(true);
    expect(Object.isFrozen(config.sms.twilio)).toBe(true);
    expect(() => {
      (config.api as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe("SMTP_MAX_FREQUENCY, when set", () => {
  it("applies to every kind of email, links included", () => {
    const config = production({ AUTH_SMTP_MAX_FREQUENCY: "30s" });
    expect(config.mailer.confirmationFrequencySeconds).toBe(30);
    expect(config.mailer.linkFrequencySeconds).toBe(30);
  });

  it("applies even when set to the spec's default", () => {
    expect(production({ AUTH_SMTP_MAX_FREQUENCY: "900" }).mailer.linkFrequencySeconds).toBe(900);
  });
});

describe("JWT_ISSUER", () => {
  it("overrides API_EXTERNAL_URL as the issuer", () => {
    expect(production({ AUTH_JWT_ISSUER: "https://issuer.example.com/auth/v1" }).jwt.issuer).toBe(
      "https://issuer.example.com/auth/v1",
    );
  });
});
