import type { CaptchaVerdict, CaptchaVerifier } from "@latchkey/domain";

export type CaptchaProvider = "hcaptcha" | "turnstile";

/** Where each provider verifies tokens: GoTrue's URLs. */
export const SITEVERIFY_URLS: Readonly<Record<CaptchaProvider, string>> = {
  hcaptcha: "https://hcaptcha.com/siteverify",
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
};

/** GoTrue's SECURITY_CAPTCHA_TIMEOUT default. */
export const DEFAULT_CAPTCHA_TIMEOUT_MS = 10_000;

/** Of a siteverify answer: a few hundred bytes in practice. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SiteverifyOptions {
  readonly provider: CaptchaProvider;
  readonly secret: string;
  /** SECURITY_CAPTCHA_TIMEOUT */
  readonly timeoutMs?: number;
  /** SECURITY_CAPTCHA_VERIFY_URL: another siteverify (a proxy, a self-hosted compatible service, a stand-in). */
  readonly verifyUrl?: string | undefined;
  readonly fetch?: typeof globalThis.fetch;
}

/** A siteverify answer that is not the provider's (wrong status page, not JSON, too large, no `success`). */
export class CaptchaProviderError extends Error {
  override readonly name = "CaptchaProviderError";
}

/**
 * Verifies tokens with the provider's siteverify API, as both document it and GoTrue calls it: a form POST of
 * `secret`, `response` and `remoteip`, within the timeout, never following a redirect. The verdict is the JSON
 * answer's `success` and `error-codes`, whatever the HTTP status (as GoTrue reads it); a token is sent once and
 * never retried, as providers make them single use.
 */
export function createSiteverifyCaptcha(options: SiteverifyOptions): CaptchaVerifier {
  const url = options.verifyUrl ?? SITEVERIFY_URLS[options.provider];
  const timeoutMs = options.timeoutMs ?? DEFAULT_CAPTCHA_TIMEOUT_MS;
  const fetchFn = options.fetch ?? globalThis.fetch;
  return {
    async verify(token, remoteIp): Promise<CaptchaVerdict> {
      const form = new URLSearchParams({ secret: options.secret, response: token });
      if (remoteIp !== null) form.set("remoteip", remoteIp);
      const response = await fetchFn(url, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: form.toString(),
        redirect: "manual",
        // The signal also bounds reading the answer.
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (text.length > MAX_ANSWER_BYTES) throw new CaptchaProviderError(`${options.provider} answered too much`);
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        throw new CaptchaProviderError(`${options.provider} answered ${response.status} with what is not JSON`);
      }
      const fields = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {};
      if (typeof fields["success"] !== "boolean") {
        throw new CaptchaProviderError(`${options.provider} answered ${response.status} without a verdict`);
      }
      const codes = fields["error-codes"];
      return {
        success: fields["success"],
        errorCodes: Array.isArray(codes) ? codes.filter((code): code is string => typeof code === "string") : [],
      };
    },
  };
}
