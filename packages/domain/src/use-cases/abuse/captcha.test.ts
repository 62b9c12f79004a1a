import { describe, expect, it } from "vitest";
import type { CaptchaVerifier } from "../../ports/captcha-verifier.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { failsWith } from "../../testing/fails-with.ts";

/** A provider that passes exactly one token, and records what it was asked. */
function provider(behaviour: "answers" | "unreachable" = "answers") {
  const asked: [string, string | null][] = [];
  const captcha: CaptchaVerifier = {
    async verify(token, remoteIp) {
      asked.push([token, remoteIp]);
      if (behaviour === "unreachable") throw new Error("connect ECONNREFUSED");
      return token === "good"
        ? { success: true, errorCodes: [] }
        : { success: false, errorCodes: ["invalid-input-response", "expired-input-response"] };
    },
  };
  return { captcha, asked };
}

describe("the captcha check", () => {
  it("asks nothing when captcha protection is off", async () => {
    const { auth } = createTestAuth();
    await auth.checkCaptcha({ token: undefined, ip: null });
    expect(auth.captchaEnabled).toBe(false);
  });

  it("passes a token the provider accepts, asked with the client's address, trimmed", async () => {
    const { captcha, asked } = provider();
    const { auth } = createTestAuth({ ports: { captcha } });
    await auth.checkCaptcha({ token: " good\n", ip: "203.0.113.9" });
    expect(asked).toEqual([["good", "203.0.113.9"]]);
  });

  it("refuses a missing token without asking, and a refused one with the provider's codes", async () => {
    const { captcha, asked } = provider();
    const { auth } = createTestAuth({ ports: { captcha } });
    const missing = await failsWith("captcha_failed", auth.checkCaptcha({ token: "  ", ip: null }));
    expect(missing.message).toBe("captcha protection: request disallowed (no captcha_token found)");
    expect(asked).toEqual([]);
    const refused = await failsWith("captcha_failed", auth.checkCaptcha({ token: "bad", ip: null }));
    expect(refused.message).toBe(
      "captcha protection: request disallowed (invalid-input-response, expired-input-response)",
    );
  });

  it("fails as ours, not the client's, when the provider cannot be asked, keeping why for the log", async () => {
    const { captcha } = provider("unreachable");
    const { auth } = createTestAuth({ ports: { captcha } });
    const error = await failsWith("unexpected_failure", auth.checkCaptcha({ token: "good", ip: null }));
    expect(error.message).toBe("captcha verification process failed");
    expect(String(error.cause)).toContain("ECONNREFUSED");
  });
});
