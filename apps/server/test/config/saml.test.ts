import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { load, problemsOf } from "./support.ts";

/** An RSA key as SAML_PRIVATE_KEY takes it (base64 of PKCS#1 DER), of `bits` and `exponent`. */
const rsaKey = (bits = 2048, exponent = 65537) =>
  generateKeyPairSync("rsa", { modulusLength: bits, publicExponent: exponent })
    .privateKey.export({ format: "der", type: "pkcs1" })
    .toString("base64");

describe("SAML settings", () => {
  it("are off by default, with GoTrue's defaults", () => {
    const config = load({});
    expect(config.saml).toMatchObject({
      enabled: false,
      allowEncryptedAssertions: false,
      relayStateValiditySeconds: 120,
      rateLimitAssertion: { events: 15, perSeconds: 300 },
      idpInitiatedEnabled: true,
    });
    const policy = toPolicy(config);
    expect(policy.saml).toEqual({ enabled: false, relayStateValiditySeconds: 120, idpInitiatedEnabled: true });
    expect(policy.requestLimits.sso).toEqual({ events: 30, perSeconds: 300 });
  });

  it("switch single sign-on on under GoTrue's names", () => {
    const key = rsaKey();
    const config = load({
      GOTRUE_SAML_ENABLED: "true",
      GOTRUE_SAML_PRIVATE_KEY: key,
      GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD: "5m",
      GOTRUE_SAML_EXTERNAL_URL: "https://sso.example.com",
      GOTRUE_RATE_LIMIT_SSO: "10",
    });
    expect(config.saml).toMatchObject({ enabled: true, privateKey: key, externalUrl: "https://sso.example.com" });
    expect(toPolicy(config).saml.relayStateValiditySeconds).toBe(300);
    expect(toPolicy(config).requestLimits.sso).toEqual({ events: 10, perSeconds: 300 });
  });

  it("stop the start without a key, or with one GoTrue refuses, in its words and without echoing it", () => {
    expect(problemsOf({ AUTH_SAML_ENABLED: "true" })).toEqual([
      "AUTH_SAML_PRIVATE_KEY is required when AUTH_SAML_ENABLED is true",
    ]);
    const refused = (value: string) => problemsOf({ AUTH_SAML_ENABLED: "true", AUTH_SAML_PRIVATE_KEY: value });
    expect(refused("not base64!")).toEqual(["AUTH_SAML_PRIVATE_KEY: SAML private key not in standard Base64 format"]);
    const pkcs8 = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ format: "der", type: "pkcs8" })
      .toString("base64");
    expect(refused(pkcs8)).toEqual(["AUTH_SAML_PRIVATE_KEY: SAML private key not in PKCS#1 format"]);
    expect(refused(rsaKey(1024))).toEqual(["AUTH_SAML_PRIVATE_KEY: SAML private key must be at least RSA 2048"]);
    expect(refused(rsaKey(2048, 3))).toEqual([
      "AUTH_SAML_PRIVATE_KEY: SAML private key should use the 65537 (0x10001) RSA public exponent",
    ]);
    const next = problemsOf({
      AUTH_SAML_ENABLED: "true",
      AUTH_SAML_PRIVATE_KEY: rsaKey(),
      AUTH_SAML_PRIVATE_KEY_NEXT: pkcs8,
    });
    expect(next).toEqual(["AUTH_SAML_PRIVATE_KEY_NEXT: SAML private key not in PKCS#1 format"]);
    expect(next.join()).not.toContain(pkcs8.slice(0, 20));
  });
});
