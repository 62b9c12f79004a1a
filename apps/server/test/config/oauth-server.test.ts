import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { load, problemsOf } from "./support.ts";

describe("OAuth server settings", () => {
  it("are off by default, with GoTrue's defaults", () => {
    const policy = toPolicy(load({}));
    expect(policy.oauthServer).toEqual({
      enabled: false,
      allowDynamicRegistration: false,
      authorizationPath: null,
      authorizationTtlSeconds: 600,
      defaultScope: "email",
    });
    expect(policy.requestLimits.oauthClientRegistrations).toEqual({ events: 10, perSeconds: 300 });
  });

  it("switch the server on, with its consent page, under GoTrue's names", () => {
    const policy = toPolicy(
      load({
        GOTRUE_OAUTH_SERVER_ENABLED: "true",
        AUTH_OAUTH_SERVER_AUTHORIZATION_PATH: "/oauth/consent",
        AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: "true",
        AUTH_OAUTH_SERVER_AUTHORIZATION_TTL: "5m",
        AUTH_OAUTH_SERVER_DEFAULT_SCOPE: "openid email",
        AUTH_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER: "3",
      }),
    );
    expect(policy.oauthServer).toEqual({
      enabled: true,
      allowDynamicRegistration: true,
      authorizationPath: "/oauth/consent",
      authorizationTtlSeconds: 300,
      defaultScope: "openid email",
    });
    expect(policy.requestLimits.oauthClientRegistrations).toEqual({ events: 3, perSeconds: 300 });
  });

  it("stop the start when the server is on without a consent page to send users to", () => {
    expect(problemsOf({ AUTH_OAUTH_SERVER_ENABLED: "true" })).toEqual([
      "AUTH_OAUTH_SERVER_AUTHORIZATION_PATH is required when AUTH_OAUTH_SERVER_ENABLED is true",
    ]);
  });
});
