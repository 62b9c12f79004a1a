import { describe, expect, it } from "vitest";
import { createConfiguredHooks } from "../../src/hooks/configured-hooks.ts";
import { PRODUCTION_ENV, problemsOf, production } from "./support.ts";

const SECRET = "v1,whsec_dGhpcnR5LXR3by1ieXRlcy1vZi1zZWNyZXQtc2lnbmluZy1rZXk=";

describe("hook settings", () => {
  it("take a function of the database, an https endpoint, or a local http one", () => {
    const config = production({
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: "true",
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: "pg-functions://postgres/public/custom_access_token_hook",
      GOTRUE_HOOK_BEFORE_USER_CREATED_ENABLED: "true",
      GOTRUE_HOOK_BEFORE_USER_CREATED_URI: "https://hooks.example.com/before",
      GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS: `${SECRET}|${SECRET}`,
      AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI: "http://localhost:3000/password",
    });
    expect(config.hooks.before_user_created).toEqual({
      enabled: true,
      uri: "https://hooks.example.com/before",
      secrets: [SECRET, SECRET],
    });
    const hooks = createConfiguredHooks(config, {});
    // A hook with a URI but not switched on is off.
    expect(Object.keys(hooks).sort()).toEqual(["before_user_created", "custom_access_token"]);
    expect(hooks.custom_access_token?.uri).toBe("pg-functions://postgres/public/custom_access_token_hook");
  });

  it("stop the start, one line each, on a missing URI, a bad scheme, plain http elsewhere or a malformed secret", () => {
    const problems = problemsOf({
      ...PRODUCTION_ENV,
      AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: "true",
      AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_URI: "ftp://hooks.example.com/mfa",
      AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI: "http://hooks.example.com/password",
      AUTH_HOOK_BEFORE_USER_CREATED_URI: "https://hooks.example.com/before",
      AUTH_HOOK_BEFORE_USER_CREATED_SECRETS: "v1,whsec_short|not-a-secret-at-all-but-long-enough-to-see",
      AUTH_HOOK_AFTER_USER_CREATED_URI: "pg-functions://postgres/public/drop table",
    });
    expect(problems).toEqual([
      "AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI is required when AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED is true",
      "AUTH_HOOK_MFA_VERIFICATION_ATTEMPT_URI: expected pg-functions://postgres/<schema>/<function> or an https:// URL",
      "AUTH_HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI: only localhost, 127.0.0.1, ::1 and host.docker.internal are supported with http",
      "AUTH_HOOK_BEFORE_USER_CREATED_SECRETS: secret #1 is not of the form v1,whsec_<base64, 32 to 88 characters>",
      expect.stringMatching(/^AUTH_HOOK_AFTER_USER_CREATED_URI: /),
    ]);
    // security: no problem quotes a secret.
    expect(problems.join("\n")).not.toContain("not-a-secret-at-all");
  });

  it("need no SMTP server in production while mail goes through the send_email hook, but a whole one if any", () => {
    const mailHook = {
      AUTH_HOOK_SEND_EMAIL_ENABLED: "true",
      AUTH_HOOK_SEND_EMAIL_URI: "https://hooks.example.com/send-email",
      AUTH_HOOK_SEND_EMAIL_SECRETS: SECRET,
      AUTH_HOOK_SEND_SMS_ENABLED: "true",
      AUTH_HOOK_SEND_SMS_URI: "pg-functions://postgres/public/send_sms",
    };
    const withoutSmtp = { ...mailHook, AUTH_SMTP_HOST: undefined, AUTH_SMTP_PORT: undefined };
    const config = production({ ...withoutSmtp, AUTH_SMTP_ADMIN_EMAIL: undefined });
    expect(config.smtp).toBeUndefined();
    expect(Object.keys(createConfiguredHooks(config, {})).sort()).toEqual(["send_email", "send_sms"]);
    expect(problemsOf({ ...PRODUCTION_ENV, ...withoutSmtp })).toEqual([
      "AUTH_SMTP_HOST is required when AUTH_SMTP_ADMIN_EMAIL is set",
      "AUTH_SMTP_PORT is required when AUTH_SMTP_ADMIN_EMAIL is set",
    ]);
    // Without the hook, SMTP is required in production as ever.
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_SMTP_HOST: undefined })).toEqual(["AUTH_SMTP_HOST is required"]);
  });
});
