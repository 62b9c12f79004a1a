import { describe, expect, it } from "vitest";
import { load, PRODUCTION_ENV, problemsOf, production } from "./support.ts";

describe("booleans, as Go's strconv.ParseBool reads them", () => {
  it.each(["1", "t", "T", "TRUE", "true", "True"])("reads %j as true", (text) => {
    expect(load({ AUTH_DISABLE_SIGNUP: text }).signup.disabled).toBe(true);
  });

  it.each(["0", "f", "F", "FALSE", "false", "False"])("reads %j as false", (text) => {
    expect(load({ AUTH_EXTERNAL_EMAIL_ENABLED: text }).signup.emailEnabled).toBe(false);
  });

  it.each(["yes", "on", "tRUE", "2"])("refuses %j", (text) => {
    expect(problemsOf({ AUTH_DISABLE_SIGNUP: text })).toEqual([
      `AUTH_DISABLE_SIGNUP: expected a boolean (true or false), got ${JSON.stringify(text)}`,
    ]);
  });
});

describe("whole numbers", () => {
  it("reads digits, with Go's optional sign", () => {
    expect(load({ AUTH_DB_MAX_POOL_SIZE: "20" }).db.maxPoolSize).toBe(20);
    expect(load({ AUTH_DB_MAX_POOL_SIZE: "+5" }).db.maxPoolSize).toBe(5);
  });

  it.each(["1.5", "1e3", "ten", "20 ", "0x10"])("refuses %j", (text) => {
    expect(problemsOf({ AUTH_DB_MAX_POOL_SIZE: text })).toEqual([
      `AUTH_DB_MAX_POOL_SIZE: expected a whole number of at least 0, got ${JSON.stringify(text)}`,
    ]);
  });
});

describe("durations, kept as seconds", () => {
  it.each([
    ["60", 60],
    ["60s", 60],
    ["15m", 900],
    ["1h30m", 5400],
    ["1.5", 1.5],
    ["0", 0],
  ])("reads %j as %d seconds", (text, seconds) => {
    expect(load({ AUTH_SMS_MAX_FREQUENCY: text }).sms.maxFrequencySeconds).toBe(seconds);
  });

  it.each(["1d", "1 h", "-5s", "-5", "soon"])("refuses %j", (text) => {
    expect(problemsOf({ AUTH_SMS_MAX_FREQUENCY: text })).toEqual([
      `AUTH_SMS_MAX_FREQUENCY: expected seconds (60) or a Go duration (60s, 15m, 1h30m), got ${JSON.stringify(text)}`,
    ]);
  });

  it("reads every duration setting", () => {
    const config = load({
      AUTH_JWT_EXP: "1h",
      AUTH_SMTP_MAX_FREQUENCY: "2m",
      AUTH_MAILER_OTP_EXP: "10m",
      AUTH_SMS_OTP_EXP: "90",
      AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "0",
      AUTH_SMS_MAX_FREQUENCY: "500ms",
      GOTRUE_API_MAX_REQUEST_DURATION: "10s",
    });
    expect(config.jwt.expSeconds).toBe(3600);
    expect(config.mailer.confirmationFrequencySeconds).toBe(120);
    expect(config.mailer.otpExpSeconds).toBe(600);
    expect(config.sms.otpExpSeconds).toBe(90);
    expect(config.security.refreshTokenReuseIntervalSeconds).toBe(0);
    expect(config.sms.maxFrequencySeconds).toBe(0.5);
    expect(config.api.maxRequestDurationSeconds).toBe(10);
  });

  it("refuses a zero or fractional token lifetime", () => {
    expect(problemsOf({ AUTH_JWT_EXP: "0" })).toHaveLength(1);
    expect(problemsOf({ AUTH_JWT_EXP: "1500ms" })).toHaveLength(1);
  });

  it("refuses a request deadline of zero, which would cut off every request", () => {
    expect(problemsOf({ AUTH_API_MAX_REQUEST_DURATION: "0s" })).toEqual([
      'AUTH_API_MAX_REQUEST_DURATION: expected seconds above 0 (60) or a Go duration (60s, 15m, 1h30m), got "0s"',
    ]);
  });
});

describe("lists", () => {
  it("splits on commas, trims entries and drops empty ones", () => {
    const config = load({
      AUTH_URI_ALLOW_LIST: " https://a.example.com/** ,,https://*.example.org ,",
      AUTH_JWT_ADMIN_ROLES: "service_role, ops",
    });
    expect(config.uriAllowList).toEqual(["https://a.example.com/**", "https://*.example.org"]);
    expect(config.jwt.adminRoles).toEqual(["service_role", "ops"]);
  });
});

describe("URLs", () => {
  it.each(["AUTH_SITE_URL", "AUTH_API_EXTERNAL_URL", "AUTH_MAILER_TEMPLATES_INVITE", "AUTH_SMS_PROVIDER_API_URL"])(
    "requires %s to be an absolute http(s) URL",
    (name) => {
      for (const text of ["example.com", "/relative", "ftp://example.com", "javascript:alert(1)"]) {
        expect(problemsOf({ [name]: text })).toEqual([
          `${name}: expected an absolute http(s) URL, got ${JSON.stringify(text)}`,
        ]);
      }
    },
  );

  it("accepts a path or an absolute URL for MAILER_URLPATHS_*", () => {
    const config = load({
      AUTH_MAILER_URLPATHS_CONFIRMATION: "/auth/v1/verify",
      AUTH_MAILER_URLPATHS_RECOVERY: "https://app.example.com/reset",
    });
    expect(config.mailer.urlPaths.confirmation).toBe("/auth/v1/verify");
    expect(config.mailer.urlPaths.recovery).toBe("https://app.example.com/reset");
    expect(problemsOf({ AUTH_MAILER_URLPATHS_INVITE: "verify" })).toHaveLength(1);
  });

  it("keeps templates and subjects by email kind", () => {
    const config = load({
      AUTH_MAILER_TEMPLATES_MAGIC_LINK: "https://cdn.example.com/magic.html",
      AUTH_MAILER_SUBJECTS_RECOVERY: "Reset it",
      AUTH_MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED: "true",
    });
    expect(config.mailer.templates.magic_link).toBe("https://cdn.example.com/magic.html");
    expect(config.mailer.subjects.recovery).toBe("Reset it");
    expect(config.mailer.notifications.password_changed).toBe(true);
    expect(config.mailer.notifications.email_changed).toBe(false);
  });

  it("reads the MFA notifications' settings like the others, and MFA_PHONE_TEMPLATE beside SMS_TEMPLATE", () => {
    const config = load({
      AUTH_MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED: "true",
      GOTRUE_MAILER_SUBJECTS_MFA_FACTOR_ENROLLED_NOTIFICATION: "New factor: {{ .FactorType }}",
      AUTH_MAILER_TEMPLATES_MFA_FACTOR_UNENROLLED_NOTIFICATION: "https://cdn.example.com/mfa-removed.html",
      AUTH_MFA_PHONE_TEMPLATE: "Your sign-in step: {{ .Code }}",
    });
    expect(config.mailer.notifications.mfa_factor_unenrolled).toBe(true);
    expect(config.mailer.notifications.mfa_factor_enrolled).toBe(false);
    expect(config.mailer.subjects.mfa_factor_enrolled).toBe("New factor: {{ .FactorType }}");
    expect(config.mailer.templates.mfa_factor_unenrolled).toBe("https://cdn.example.com/mfa-removed.html");
    expect(config.sms.mfaTemplate).toBe("Your sign-in step: {{ .Code }}");
    expect(config.sms.template).toBe("Your code is {{ .Code }}");
  });
});

describe("choices", () => {
  it("reads LOG_LEVEL in any case, and refuses other levels", () => {
    expect(load({ LOG_LEVEL: "WARN" }).log.level).toBe("warn");
    expect(problemsOf({ LOG_LEVEL: "trace" })).toEqual([
      'LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, got "trace"',
    ]);
  });

  it("accepts only postgres as DB_DRIVER", () => {
    expect(load({ AUTH_DB_DRIVER: "postgres" }).db.driver).toBe("postgres");
    expect(problemsOf({ AUTH_DB_DRIVER: "mysql" })).toEqual(['AUTH_DB_DRIVER: expected one of postgres, got "mysql"']);
  });

  it("accepts the four SMS providers only", () => {
    expect(problemsOf({ AUTH_SMS_PROVIDER: "twilio_verify" })).toEqual([
      'AUTH_SMS_PROVIDER: expected one of twilio, messagebird, textlocal, vonage, got "twilio_verify"',
    ]);
  });

  it("reads SMS_PROVIDER_API_URL as an http(s) origin for the provider's API, absent by default", () => {
    expect(load({ AUTH_SMS_PROVIDER_API_URL: "https://api.dublin.ie1.twilio.com" }).sms.apiUrl).toBe(
      "https://api.dublin.ie1.twilio.com",
    );
    expect(load({}).sms.apiUrl).toBeUndefined();
    expect(problemsOf({ AUTH_SMS_PROVIDER_API_URL: "api.twilio.com" })).toEqual([
      'AUTH_SMS_PROVIDER_API_URL: expected an absolute http(s) URL, got "api.twilio.com"',
    ]);
  });
});

describe("rate limits", () => {
  it("reads a bare number as per hour, and N/duration as N per that duration", () => {
    const config = load({ AUTH_RATE_LIMIT_EMAIL_SENT: "100", AUTH_RATE_LIMIT_SMS_SENT: "10/1m" });
    expect(config.rateLimit.emailSent).toEqual({ events: 100, perSeconds: 3600 });
    expect(config.rateLimit.smsSent).toEqual({ events: 10, perSeconds: 60 });
  });

  it.each(["ten", "10/", "10/1d", "1.5/1m", "10/0s", "-1"])("refuses %j", (text) => {
    expect(problemsOf({ AUTH_RATE_LIMIT_EMAIL_SENT: text })).toEqual([
      "AUTH_RATE_LIMIT_EMAIL_SENT: expected a number per hour (30) or a count per duration (10/1m), " +
        `got ${JSON.stringify(text)}`,
    ]);
  });

  it("keeps GoTrue's windows for the per-IP limits", () => {
    const config = load({
      AUTH_RATE_LIMIT_VERIFY: "60",
      AUTH_RATE_LIMIT_ANONYMOUS_USERS: "5",
      AUTH_RATE_LIMIT_HEADER: "CF-Connecting-IP",
    });
    expect(config.rateLimit.verify).toEqual({ events: 60, perSeconds: 300 });
    expect(config.rateLimit.anonymousUsers).toEqual({ events: 5, perSeconds: 3600 });
    expect(config.rateLimit.header).toBe("CF-Connecting-IP");
  });
});

describe("Redis", () => {
  it.each(["redis://127.0.0.1:6379", "redis://:pw@cache.internal:6380/2", "rediss://default:pw@cache.example.com"])(
    "reads %j",
    (url) => {
      expect(load({ AUTH_REDIS_URL: url }).rateLimit.redisUrl).toBe(url);
    },
  );

  it.each(["http://cache:6379", "cache.internal:6379", "redis://", "unix:///tmp/redis.sock"])("refuses %j", (text) => {
    expect(problemsOf({ AUTH_REDIS_URL: text })).toEqual(["AUTH_REDIS_URL: expected a redis:// or rediss:// URL"]);
  });
});

describe("passwords", () => {
  it("raises a minimum length below 6 to 6, as Supabase does", () => {
    expect(load({ AUTH_PASSWORD_MIN_LENGTH: "4" }).password.minLength).toBe(6);
    expect(load({ AUTH_PASSWORD_MIN_LENGTH: "12" }).password.minLength).toBe(12);
  });

  it("refuses a minimum no password could meet", () => {
    expect(problemsOf({ AUTH_PASSWORD_MIN_LENGTH: "2000" })).toHaveLength(1);
  });

  it("splits the required character sets on unescaped colons", () => {
    expect(load({ AUTH_PASSWORD_REQUIRED_CHARACTERS: "abc:0123456789:\\:!" }).password.requiredCharacters).toEqual([
      "abc",
      "0123456789",
      ":!",
    ]);
  });
});

describe("one-time passwords", () => {
  it.each(["6", "8", "10"])("accepts a length of %s", (text) => {
    expect(load({ AUTH_SMS_OTP_LENGTH: text, AUTH_MAILER_OTP_LENGTH: text }).sms.otpLength).toBe(Number(text));
  });

  it.each(["5", "11"])("refuses a length of %s", (text) => {
    expect(problemsOf({ AUTH_SMS_OTP_LENGTH: text, AUTH_MAILER_OTP_LENGTH: text })).toEqual([
      `AUTH_MAILER_OTP_LENGTH: expected a whole number from 6 to 10, got "${text}"`,
      `AUTH_SMS_OTP_LENGTH: expected a whole number from 6 to 10, got "${text}"`,
    ]);
  });

  it("reads test OTPs as phone:code pairs, phones in E.164", () => {
    const config = load({
      AUTH_SMS_TEST_OTP: "15551234567:123456, +44 7700 900123:654321",
      AUTH_SMS_TEST_OTP_VALID_UNTIL: "2030-01-01T00:00:00Z",
    });
    expect(config.sms.testOtp).toEqual({ "+15551234567": "123456", "+447700900123": "654321" });
    expect(config.sms.testOtpValidUntil).toEqual(new Date("2030-01-01T00:00:00Z"));
  });

  it("refuses malformed test OTPs and expiry", () => {
    expect(problemsOf({ AUTH_SMS_TEST_OTP: "15551234567=123456" })).toHaveLength(1);
    expect(problemsOf({ AUTH_SMS_TEST_OTP_VALID_UNTIL: "next year" })).toHaveLength(1);
  });
});

describe("database", () => {
  it("accepts a table-name prefix of identifier characters only", () => {
    expect(load({ AUTH_DB_NAMESPACE: "auth_" }).db.namespace).toBe("auth_");
    expect(problemsOf({ AUTH_DB_NAMESPACE: 'x"; drop table users; --' })).toHaveLength(1);
    expect(load({ AUTH_DB_NAMESPACE: "a".repeat(28) }).db.namespace).toHaveLength(28);
    expect(problemsOf({ AUTH_DB_NAMESPACE: "a".repeat(29) })).toEqual([
      `AUTH_DB_NAMESPACE: expected letters, digits and underscores, not starting with a digit, at most 28 characters, got "${"a".repeat(29)}"`,
    ]);
  });
});

describe("API_READINESS_DEPENDENCIES", () => {
  it("is empty by default, and reads a comma-separated list of redis and smtp", () => {
    expect(production().api.readinessDependencies).toEqual([]);
    expect(
      production({ AUTH_API_READINESS_DEPENDENCIES: " smtp, redis ,", AUTH_REDIS_URL: "redis://cache:6379" }).api
        .readinessDependencies,
    ).toEqual(["smtp", "redis"]);
  });

  it.each(["database", "redis;smtp", "Redis"])("refuses %j", (text) => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_API_READINESS_DEPENDENCIES: text })).toEqual([
      `AUTH_API_READINESS_DEPENDENCIES: expected a comma-separated list of redis, smtp, got ${JSON.stringify(text)}`,
    ]);
  });

  it("warns of a dependency it names that is not configured, so not checked", () => {
    expect(production({ AUTH_API_READINESS_DEPENDENCIES: "redis" }).warnings).toContain(
      "AUTH_API_READINESS_DEPENDENCIES names redis, which is not checked: REDIS_URL is unset",
    );
    expect(load({ AUTH_API_READINESS_DEPENDENCIES: "smtp" }).warnings).toContain(
      "AUTH_API_READINESS_DEPENDENCIES names smtp, which is not checked: AUTH_SMTP_HOST is unset",
    );
    expect(
      production({
        AUTH_API_READINESS_DEPENDENCIES: "redis,smtp",
        AUTH_REDIS_URL: "redis://cache:6379",
      }).warnings.filter((warning) => warning.includes("READINESS")),
    ).toEqual([]);
  });
});
