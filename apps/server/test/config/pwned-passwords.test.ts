import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { createConfiguredPwnedPasswords, rangeApiOptions } from "../../src/sign-in/pwned-passwords.ts";
import { load, problemsOf } from "./support.ts";

describe("leaked-password settings", () => {
  it("are off by default: no service, failing open, no bloom filter", () => {
    const config = load({});
    expect(createConfiguredPwnedPasswords(config)).toBeNull();
    expect(toPolicy(config).password.pwnedFailClosed).toBe(false);
    expect(config.password).toMatchObject({
      hibpBloomEnabled: false,
      hibpBloomItems: 100_000,
      hibpBloomFalsePositives: 0.0000099,
    });
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
    expect(rangeApiOptions(config)).toEqual({ url: "http://127.0.0.1:8089", userAgent: "example-auth" });
  });

  it("give the range API the bloom-filter cache, as GoTrue names its settings", () => {
    const defaults = load({ AUTH_PASSWORD_HIBP_ENABLED: "true", AUTH_PASSWORD_HIBP_BLOOM_ENABLED: "true" });
    expect(rangeApiOptions(defaults).bloom).toEqual({ items: 100_000, falsePositives: 0.0000099 });
    expect(createConfiguredPwnedPasswords(defaults)).not.toBeNull();

    const set = load({
      AUTH_PASSWORD_HIBP_ENABLED: "true",
      GOTRUE_PASSWORD_HIBP_BLOOM_ENABLED: "true",
      GOTRUE_PASSWORD_HIBP_BLOOM_ITEMS: "5000",
      AUTH_PASSWORD_HIBP_BLOOM_FALSE_POSITIVES: "1e-4",
    });
    expect(rangeApiOptions(set).bloom).toEqual({ items: 5_000, falsePositives: 0.0001 });
  });

  it("leave the bloom filter unused, though read, while the check is off", () => {
    const config = load({ AUTH_PASSWORD_HIBP_BLOOM_ENABLED: "true", AUTH_PASSWORD_HIBP_BLOOM_ITEMS: "1000" });
    expect(config.password).toMatchObject({ hibpEnabled: false, hibpBloomEnabled: true, hibpBloomItems: 1_000 });
    expect(createConfiguredPwnedPasswords(config)).toBeNull();
  });

  it("stop the start with a URL that is not one, or a bloom filter that cannot be", () => {
    expect(problemsOf({ AUTH_PASSWORD_HIBP_URL: "api.pwnedpasswords.com" })).toEqual([
      expect.stringMatching(/^AUTH_PASSWORD_HIBP_URL: .*absolute http\(s\) URL/),
    ]);
    for (const items of ["0", "-5", "1.5", "lots"]) {
      expect(problemsOf({ AUTH_PASSWORD_HIBP_BLOOM_ITEMS: items })).toEqual([
        expect.stringMatching(/^AUTH_PASSWORD_HIBP_BLOOM_ITEMS: .*whole number of at least 1/),
      ]);
    }
    for (const rate of ["0", "1", "1.5", "-0.1", "5%", "0x1"]) {
      expect(problemsOf({ AUTH_PASSWORD_HIBP_BLOOM_FALSE_POSITIVES: rate })).toEqual([
        expect.stringMatching(/^AUTH_PASSWORD_HIBP_BLOOM_FALSE_POSITIVES: .*between 0 and 1/),
      ]);
    }
    expect(problemsOf({ AUTH_PASSWORD_HIBP_BLOOM_ENABLED: "yes" })).toEqual([
      expect.stringMatching(/^AUTH_PASSWORD_HIBP_BLOOM_ENABLED: .*boolean/),
    ]);
  });
});
