export {
  type CaptchaProvider,
  CaptchaProviderError,
  createSiteverifyCaptcha,
  DEFAULT_CAPTCHA_TIMEOUT_MS,
  SITEVERIFY_URLS,
  type SiteverifyOptions,
} from "./siteverify-captcha.ts";
