import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { createConfiguredPwnedPasswords } from "../../src/sign-in/pwned-passwords.ts";
import { load, problemsOf } from "./support.ts";

describe("leaked-password settings", () => {
  it("are off by default: no service, failing open", () => {
    const config = load({});
    expect(createConfiguredPwnedPasswords(config)).toBeNull();
    expect(toPolicy(config).password.pwnedFailClosed).toBe(false);
  });

  it("switch the check on as GoTrue names them, with our URL of the service", () => {
    const config = load({
      GOTRUE_PASSWORD_HIBP_ENABLED: "true",
      AUTH_PASSWORD_HIBP_FAIL_CLOSED: "true",
      AUTH_PASSWORD_HIBP_USER_AGENT: "example-auth",
      AUTH_PASSWORD_HIBP_URL: "http://127.0.0.1:8089",
      AUTH_PASSWORD_HIBP_BLOOM_ENABLED: "false",
    });
    expect(config.password).toMatchObject({
      hibpEnabled: true,
      hibpFailClosed: true,
      hibpUserAgent: "example-auth",
      hibpUrl: "http://127.0.0.1:8089",
    });
    expect(toPolicy(config).password).toEqual({ minLength: 6, requiredCharacters: [], pwnedFailClosed: true });
    expect(createConfiguredPwnedPasswords(config)).not.toBeNull();
  });

  it("stop the start with a URL that is not one, or the bloom-filter cache, which is not built", () => {
    expect(problemsOf({ AUTH_PASSWORD_HIBP_URL: "api.pwnedpasswords.com" })).toEqual([
      expect.stringMatching(/^AUTH_PASSWORD_HIBP_URL: .*absolute http\(s\) URL/),
    ]);
    expect(problemsOf({ AUTH_PASSWORD_HIBP_BLOOM_ENABLED: "true", AUTH_PASSWORD_HIBP_BLOOM_ITEMS: "1000" })).toEqual([
      "AUTH_PASSWORD_HIBP_BLOOM_ENABLED: The bloom-filter cache of leaked-password checks is not built in Latchkey " +
        "yet; remove this variable or set it to false",
      "AUTH_PASSWORD_HIBP_BLOOM_ITEMS: The bloom-filter cache of leaked-password checks is not built in Latchkey " +
        "yet; remove this variable",
    ]);
  });
});
