import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { createConfiguredWebAuthn } from "../../src/sign-in/webauthn.ts";
import { load, problemsOf } from "./support.ts";

const RELYING_PARTY = {
  AUTH_WEBAUTHN_RP_ID: "example.com",
  AUTH_WEBAUTHN_RP_DISPLAY_NAME: "Example",
  AUTH_WEBAUTHN_RP_ORIGINS: "https://app.example.com, https://example.com",
};

describe("passkey and WebAuthn settings", () => {
  it("are off by default: no relying party, passkeys off, WebAuthn factors off", async () => {
    const config = load({});
    const policy = toPolicy(config);
    expect(policy.passkeys).toEqual({
      enabled: false,
      maxPerUser: 10,
      challengeExpirySeconds: 300,
      userVerification: "preferred",
    });
    expect(policy.mfa.webauthn).toEqual({ enroll: false, verify: false });
    expect(await createConfiguredWebAuthn(config)).toBeNull();
  });

  it("switch passkeys and WebAuthn factors on with a relying party, as GoTrue names them", async () => {
    const config = load({
      ...RELYING_PARTY,
      GOTRUE_PASSKEY_ENABLED: "true",
      AUTH_PASSKEY_MAX_PASSKEYS_PER_USER: "3",
      AUTH_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
      AUTH_WEBAUTHN_CHALLENGE_EXPIRY_DURATION: "2m",
      AUTH_WEBAUTHN_USER_VERIFICATION: "required",
      AUTH_RATE_LIMIT_PASSKEY: "5",
    });
    const policy = toPolicy(config);
    expect(policy.passkeys).toEqual({
      enabled: true,
      maxPerUser: 3,
      challengeExpirySeconds: 120,
      userVerification: "required",
    });
    expect(policy.mfa.webauthn).toEqual({ enroll: true, verify: false });
    expect(policy.requestLimits.passkey).toEqual({ events: 5, perSeconds: 300 });
    expect(config.webauthn.rpOrigins).toEqual(["https://app.example.com", "https://example.com"]);
    expect(await createConfiguredWebAuthn(config)).not.toBeNull();
  });

  it("stop the start without a complete relying party, or with an origin browsers would refuse for it", () => {
    expect(problemsOf({ AUTH_PASSKEY_ENABLED: "true", AUTH_WEBAUTHN_RP_ID: "example.com" })).toEqual([
      "AUTH_WEBAUTHN_RP_DISPLAY_NAME is required when AUTH_PASSKEY_ENABLED is true",
      "AUTH_WEBAUTHN_RP_ORIGINS is required when AUTH_PASSKEY_ENABLED is true",
    ]);
    expect(
      problemsOf({
        ...RELYING_PARTY,
        AUTH_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
        AUTH_WEBAUTHN_RP_ORIGINS:
          "https://evil.test,http://app.example.com,https://app.example.com/login,http://localhost:5173",
      }),
    ).toEqual([
      "AUTH_WEBAUTHN_RP_ORIGINS: https://evil.test: is not on WEBAUTHN_RP_ID (example.com) or under it",
      "AUTH_WEBAUTHN_RP_ORIGINS: http://app.example.com: must be https (http only for localhost): browsers run WebAuthn in secure contexts only",
      "AUTH_WEBAUTHN_RP_ORIGINS: https://app.example.com/login: expected an origin: a scheme, a host and an optional port, nothing after (https://app.example.com)",
      "AUTH_WEBAUTHN_RP_ORIGINS: http://localhost:5173: is not on WEBAUTHN_RP_ID (example.com) or under it",
    ]);
    // Switched off, the relying party is not needed.
    expect(load({ AUTH_PASSKEY_ENABLED: "false" }).passkey.enabled).toBe(false);
  });
});
