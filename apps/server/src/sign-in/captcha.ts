import { createSiteverifyCaptcha } from "@latchkey/adapters-captcha";
import type { CaptchaVerifier } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/** SECURITY_CAPTCHA_*: the provider's siteverify when captcha protection is on, else none. */
export function createConfiguredCaptcha(config: Config): CaptchaVerifier | null {
  const { captcha } = config;
  if (!captcha.enabled) return null;
  return createSiteverifyCaptcha({
    provider: captcha.provider,
    // GoTrue trims it; a secret pasted with a newline would otherwise fail every check.
    secret: (captcha.secret ?? "").trim(),
    timeoutMs: captcha.timeoutSeconds * 1000,
    verifyUrl: captcha.verifyUrl,
  });
}
