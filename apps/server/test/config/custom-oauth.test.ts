import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { load, problemsOf } from "./support.ts";

describe("custom OAuth provider settings", () => {
  it("are on by default with no limit, as GoTrue's, loopback URLs refused", () => {
    const config = load({});
    expect(config.customOAuth).toEqual({
      enabled: true,
      maxProviders: 0,
      externalUrl: undefined,
      allowLoopbackUrls: false,
    });
    expect(toPolicy(config).customProviders).toEqual({ enabled: true, maxProviders: null });
  });

  it("are read under GoTrue's names, with our loopback switch", () => {
    const config = load({
      GOTRUE_CUSTOM_OAUTH_ENABLED: "false",
      GOTRUE_CUSTOM_OAUTH_MAX_PROVIDERS: "5",
      GOTRUE_CUSTOM_OAUTH_EXTERNAL_URL: "https://auth.example.com",
      AUTH_CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS: "true",
    });
    expect(config.customOAuth).toEqual({
      enabled: false,
      maxProviders: 5,
      externalUrl: "https://auth.example.com",
      allowLoopbackUrls: true,
    });
    expect(toPolicy(config).customProviders).toEqual({ enabled: false, maxProviders: 5 });
  });

  it("refuse what is not a count or a URL", () => {
    expect(problemsOf({ AUTH_CUSTOM_OAUTH_MAX_PROVIDERS: "-1" })).toHaveLength(1);
    expect(problemsOf({ AUTH_CUSTOM_OAUTH_EXTERNAL_URL: "not a url" })).toHaveLength(1);
  });
});
