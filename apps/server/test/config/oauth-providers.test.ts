import { describe, expect, it } from "vitest";
import { publicSettings } from "../../src/http/public-settings.ts";
import { createConfiguredOAuthProviders, oauthFlowCookie } from "../../src/sign-in/oauth-providers.ts";
import { PRODUCTION_ENV, problemsOf, production } from "./support.ts";

describe("OAuth provider settings", () => {
  it("stops the start when an enabled provider lacks what it needs, naming each setting", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_EXTERNAL_GITHUB_ENABLED: "true" })).toEqual([
      "AUTH_EXTERNAL_GITHUB_CLIENT_ID is required when AUTH_EXTERNAL_GITHUB_ENABLED is true",
      "AUTH_EXTERNAL_GITHUB_SECRET is required when AUTH_EXTERNAL_GITHUB_ENABLED is true",
    ]);
    expect(
      problemsOf({
        ...PRODUCTION_ENV,
        AUTH_EXTERNAL_KEYCLOAK_ENABLED: "true",
        AUTH_EXTERNAL_KEYCLOAK_CLIENT_ID: "app",
        AUTH_EXTERNAL_KEYCLOAK_SECRET: "s",
      }),
    ).toEqual(["AUTH_EXTERNAL_KEYCLOAK_URL is required when AUTH_EXTERNAL_KEYCLOAK_ENABLED is true"]);
  });

  it("reads a provider under GoTrue's names, linkedin_oidc's included, and reports it enabled under both names", () => {
    const config = production({
      GOTRUE_EXTERNAL_LINKEDIN_OIDC_ENABLED: "true",
      GOTRUE_EXTERNAL_LINKEDIN_OIDC_CLIENT_ID: "first,second",
      GOTRUE_EXTERNAL_LINKEDIN_OIDC_SECRET: "linkedin-secret",
    });
    expect(config.external.linkedin).toMatchObject({ enabled: true, clientId: ["first", "second"] });
    const { external } = publicSettings(config);
    expect(external).toMatchObject({
      linkedin: true,
      linkedin_oidc: true,
      slack: false,
      slack_oidc: false,
      github: false,
    });
    const provider = createConfiguredOAuthProviders(config).get("linkedin");
    expect(provider?.name).toBe("linkedin");
    expect([...createConfiguredOAuthProviders(config).keys()]).toEqual(["linkedin"]);
  });

  it("refuses MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS with MAILER_AUTOCONFIRM, as GoTrue does", () => {
    expect(
      problemsOf({
        ...PRODUCTION_ENV,
        AUTH_MAILER_AUTOCONFIRM: "true",
        GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS: "true",
      }),
    ).toEqual(["GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS cannot be set with AUTH_MAILER_AUTOCONFIRM"]);
    expect(production({ AUTH_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS: "true" }).mailer.allowUnverifiedEmailSignIns).toBe(
      true,
    );
  });

  it("still refuses the EXTERNAL_ settings of features not built", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_EXTERNAL_IOS_BUNDLE_ID: "com.example.app" })).toEqual([
      "AUTH_EXTERNAL_IOS_BUNDLE_ID: This OAuth provider or setting is not built in Latchkey yet; remove this variable",
    ]);
  });

  it("refuses a provider's callback on another origin than the API, where the browser-binding cookie is set", () => {
    const github = {
      ...PRODUCTION_ENV,
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      AUTH_EXTERNAL_GITHUB_CLIENT_ID: "app",
      AUTH_EXTERNAL_GITHUB_SECRET: "s",
    };
    expect(problemsOf({ ...github, AUTH_EXTERNAL_GITHUB_REDIRECT_URI: "https://login.example.com/callback" })).toEqual([
      "AUTH_EXTERNAL_GITHUB_REDIRECT_URI: must be on AUTH_API_EXTERNAL_URL's origin (https://auth.example.com), where the cookie that binds a sign-in to its browser is set; got https://login.example.com",
    ]);
    // Another path on the API's origin (a gateway's /auth/v1/callback) is where the cookie is scoped.
    expect(
      production({ ...github, AUTH_EXTERNAL_GITHUB_REDIRECT_URI: "https://auth.example.com/auth/v1/callback" }).external
        .github.redirectUri,
    ).toBe("https://auth.example.com/auth/v1/callback");
    // A provider that is off is not checked.
    expect(
      production({ AUTH_EXTERNAL_GITLAB_REDIRECT_URI: "https://login.example.com/callback" }).external.gitlab.enabled,
    ).toBe(false);
  });

  it("scopes the browser-binding cookie to each provider's callback path, Secure when the API is on https", () => {
    const cookie = oauthFlowCookie(
      production({
        AUTH_EXTERNAL_GITHUB_ENABLED: "true",
        AUTH_EXTERNAL_GITHUB_CLIENT_ID: "app",
        AUTH_EXTERNAL_GITHUB_SECRET: "s",
        AUTH_EXTERNAL_GITHUB_REDIRECT_URI: "https://auth.example.com/auth/v1/callback",
      }),
    );
    expect(cookie.secure).toBe(true);
    expect(cookie.callbackPath("github")).toBe("/auth/v1/callback");
    expect(cookie.callbackPath("google")).toBe("/callback");
    expect(oauthFlowCookie(production({ AUTH_API_EXTERNAL_URL: "http://localhost:9999" })).secure).toBe(false);
  });
});
