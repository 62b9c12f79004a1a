import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";

export interface CheckCaptchaInput {
  /** `gotrue_meta_security.captcha_token` of the request body, where auth-js puts it. */
  readonly token: string | undefined;
  readonly ip: string | null;
}

/**
 * The captcha check of the endpoints anyone can call to create, mail or guess (GoTrue's list, in the route table):
 * with SECURITY_CAPTCHA_ENABLED, a token the provider accepts, verified before anything is looked up, hashed or
 * sent. Each token is asked about once: providers make them single use, and a success is never remembered.
 */
export async function checkCaptcha(deps: Deps, input: CheckCaptchaInput): Promise<void> {
  if (deps.captcha === null) return;
  const token = input.token?.trim() ?? "";
  if (token === "") {
    deps.events.record({ kind: "captcha_failed", reason: "missing" });
    throw new AuthError("captcha_failed", "captcha protection: request disallowed (no captcha_token found)");
  }
  const verdict = await deps.captcha.verify(token, input.ip).catch((error: unknown) => {
    throw new AuthError("unexpected_failure", "captcha verification process failed", { cause: error });
  });
  if (!verdict.success) {
    deps.events.record({ kind: "captcha_failed", reason: "rejected" });
    throw new AuthError("captcha_failed", `captcha protection: request disallowed (${verdict.errorCodes.join(", ")})`);
  }
}
