import { describe, expect, it } from "vitest";
import { createConfiguredCaptcha } from "../../src/sign-in/captcha.ts";
import { PRODUCTION_ENV, problemsOf, production } from "./support.ts";

describe("captcha settings", () => {
  it("stop the start when captcha is on without a secret, or with a provider Latchkey does not know", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_SECURITY_CAPTCHA_ENABLED: "true" })).toEqual([
      "AUTH_SECURITY_CAPTCHA_SECRET is required when AUTH_SECURITY_CAPTCHA_ENABLED is true",
    ]);
    const problems = problemsOf({
      ...PRODUCTION_ENV,
      AUTH_SECURITY_CAPTCHA_ENABLED: "true",
      AUTH_SECURITY_CAPTCHA_SECRET: "s",
      AUTH_SECURITY_CAPTCHA_PROVIDER: "recaptcha",
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("AUTH_SECURITY_CAPTCHA_PROVIDER");
  });

  it("make a verifier only when captcha is on, with GoTrue's defaults", () => {
    expect(createConfiguredCaptcha(production())).toBeNull();
    const config = production({ GOTRUE_SECURITY_CAPTCHA_ENABLED: "true", GOTRUE_SECURITY_CAPTCHA_SECRET: " s " });
    expect(config.captcha).toMatchObject({ enabled: true, provider: "hcaptcha", timeoutSeconds: 10 });
    expect(createConfiguredCaptcha(config)).not.toBeNull();
  });
});
