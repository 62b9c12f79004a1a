import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.ts";
import { load, PRODUCTION_ENV, problemsOf, tempCwd } from "./support.ts";

describe("a refused configuration", () => {
  it("throws one ConfigError listing every problem, one per line", () => {
    const env = {
      DATABASE_URL: PRODUCTION_ENV["DATABASE_URL"],
      AUTH_SITE_URL: "app.example.com",
      AUTH_JWT_EXP: "soon",
      AUTH_JWT_SECRET: "0f8e2a7c5b9d4e1f3a6c8b0d2e4f6a8c0b2d",
      AUTH_DB_DRIVER: "postgres",
      AUTH_SMTP_HOST: "smtp.example.com",
      AUTH_SMTP_PORT: "25x",
      LOG_LEVEL: "verbose",
    };
    let error: unknown;
    try {
      loadConfig({ env, cwd: tempCwd(), dotenv: { text: "" } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { message, problems } = error as ConfigError;
    expect([...problems].sort()).toEqual(
      [
        'AUTH_SITE_URL: expected an absolute http(s) URL, got "app.example.com"',
        'AUTH_JWT_EXP: expected whole seconds above 0 (60) or a Go duration (60s, 15m, 1h30m), got "soon"',
        'AUTH_SMTP_PORT: expected a whole number from 1 to 65535, got "25x"',
        'LOG_LEVEL: expected one of panic, fatal, error, warn, info, debug, got "verbose"',
        "AUTH_API_EXTERNAL_URL is required",
        "AUTH_SMTP_ADMIN_EMAIL is required",
      ].sort(),
    );
    const lines = problems.map((problem) => `  ${problem}`);
    expect(message.split("\n")).toEqual(["Invalid configuration (production profile):", ...lines]);
  });

  it("never shows the value of a secret", () => {
    const secrets = {
      DATABASE_URL: "mysql://root:db-pass-7Qx@db/auth",
      AUTH_JWT_SECRET: "short-jwt-secret-4Hz",
      AUTH_SMTP_PASS: "smtp-pass-8Kd",
      AUTH_SMS_TEST_OTP: "not-a-map-2Wv",
      AUTH_OPERATOR_TOKEN: "operator-token-5Jm",
      AUTH_API_ENDPOINT: "http://operator.example.com",
      AUTH_EXTERNAL_GITHUB_SECRET: "github-secret-3Pn",
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      REDIS_URL: "http://default:redis-pass-6Tb@cache:6379",
    };
    const message = messageOf({ ...secrets, AUTH_SITE_URL: "nope" });
    expect(message).toContain("DATABASE_URL: expected a postgres:// or postgresql:// URL");
    expect(message).toContain("AUTH_JWT_SECRET: must be at least 32 characters");
    expect(message).toContain("AUTH_SMS_TEST_OTP: expected phone:code pairs");
    expect(message).toContain("REDIS_URL: expected a redis:// or rediss:// URL");
    expect(message).toContain('AUTH_SITE_URL: expected an absolute http(s) URL, got "nope"');
    for (const [name, value] of Object.entries(secrets)) {
      if (name.endsWith("_ENABLED")) continue;
      expect(message).not.toContain(value);
    }
  });
});

describe("cross-field checks", () => {
  it("requires the credentials of the chosen SMS provider", () => {
    expect(problemsOf({ AUTH_SMS_PROVIDER: "vonage", AUTH_SMS_VONAGE_API_KEY: "key" })).toEqual([
      "AUTH_SMS_VONAGE_API_SECRET is required when AUTH_SMS_PROVIDER is vonage",
      "AUTH_SMS_VONAGE_FROM is required when AUTH_SMS_PROVIDER is vonage",
    ]);
    const config = load({
      AUTH_SMS_PROVIDER: "twilio",
      AUTH_SMS_TWILIO_ACCOUNT_SID: "AC123",
      AUTH_SMS_TWILIO_AUTH_TOKEN: "token",
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: "MG123",
    });
    expect(config.sms.provider).toBe("twilio");
    expect(config.sms.twilio).toEqual({ accountSid: "AC123", authToken: "token", messageServiceSid: "MG123" });
  });

  it("reports them even when other values fail to parse", () => {
    expect(problemsOf({ AUTH_SMS_PROVIDER: "vonage", AUTH_JWT_EXP: "soon" })).toHaveLength(4);
  });
});

describe("settings of features Latchkey does not have yet", () => {
  it.each([
    [
      "AUTH_EXTERNAL_KAKAO_ENABLED",
      "true",
      "This OAuth provider or setting",
      "remove this variable or set it to false",
    ],
    [
      "GOTRUE_EXTERNAL_REDIRECT_URL",
      "https://app.example.com",
      "This OAuth provider or setting",
      "remove this variable",
    ],
    ["AUTH_JWT_ADMIN_GROUP_NAME", "admin", "Editing app_metadata through PUT /user", "remove this variable"],
    [
      "GOTRUE_EXTERNAL_FLY_ENABLED",
      "true",
      "This OAuth provider or setting",
      "remove this variable or set it to false",
    ],
  ])("stop the start: %s", (name, value, feature, advice) => {
    expect(problemsOf({ [name]: value })).toEqual([`${name}: ${feature} is not built in Latchkey yet; ${advice}`]);
  });

  it("pass when they are switches turned off, or names other programs read without a prefix", () => {
    const config = load({
      GOTRUE_EXTERNAL_GOOGLE_ENABLED: "false",
      AUTH_SECURITY_CAPTCHA_ENABLED: "false",
      AUTH_METRICS_ENABLED: "0",
      OTEL_SERVICE_NAME: "auth",
      OTEL_EXPORTER_PROMETHEUS_PORT: "9464",
      EXTERNAL_GITHUB_CLIENT_ID: "not ours without a prefix",
    });
    expect(config.profile).toBe("development");
  });

  it("are named in one message with the other problems, their values never shown", () => {
    const problems = problemsOf({ AUTH_EXTERNAL_ZOOM_SECRET: "zoom-secret-1Xz", AUTH_JWT_EXP: "soon" });
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).not.toContain("zoom-secret-1Xz");
  });
});

describe("multi-instance mode", () => {
  it.each([
    ["AUTH_API_ENDPOINT", "http://operator"],
    ["AUTH_MULTI_INSTANCE_MODE", "true"],
  ])("is refused when %s is set", (name, value) => {
    expect(problemsOf({ [name]: value })).toEqual([
      `${name}: multi-instance mode is not supported by Latchkey; remove this variable`,
    ]);
  });

  it("refuses its operator token with it", () => {
    expect(problemsOf({ GOTRUE_OPERATOR_TOKEN: "token", AUTH_MULTI_INSTANCE_MODE: "true" })).toEqual([
      "GOTRUE_OPERATOR_TOKEN: multi-instance mode is not supported by Latchkey; remove this variable",
      "AUTH_MULTI_INSTANCE_MODE: multi-instance mode is not supported by Latchkey; remove this variable",
    ]);
  });

  it.each(["AUTH_OPERATOR_TOKEN", "GOTRUE_OPERATOR_TOKEN"])(
    "accepts %s alone, as Supabase's compose files set it, with a warning that it is ignored",
    (name) => {
      expect(load({ [name]: "operator-token-5Jm" }).warnings).toEqual([
        `${name} is ignored: it belongs to multi-instance mode, which Latchkey does not have`,
      ]);
    },
  );

  it("is not refused when MULTI_INSTANCE_MODE says it is off", () => {
    expect(load({ AUTH_MULTI_INSTANCE_MODE: "false" }).profile).toBe("development");
  });
});

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig({ env, cwd: tempCwd(), dotenv: { text: "" } });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected the configuration to be refused");
}
