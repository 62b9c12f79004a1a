import { describe, expect, it } from "vitest";
import { publicSettings } from "../../src/http/public-settings.ts";
import { createConfiguredOAuthProviders } from "../../src/sign-in/oauth-providers.ts";
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
});
