import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { workos } from "../src/providers/workos.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

/** WorkOS's SSO profile, as its token endpoint embeds it. */
const PROFILE = {
  object: "profile",
  id: "prof_01DMC79VCBZ0NY2099737PSVF1",
  connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5",
  connection_type: "OktaSAML",
  organization_id: "org_01EHWNCE74X7JSDV0X3SZ3KJNY",
  email: "todd@example.com",
  first_name: "Todd",
  last_name: "Rundgren",
  idp_id: "00u1a0ufowBJlzPlk357",
  raw_attributes: {},
};

/** WorkOS's /sso/token: the profile inside the answer, and no `token_type`. */
function standInWorkOS(answer: object = { access_token: "workos_access", profile: PROFILE }): Promise<StandIn> {
  return startStandIn({
    "POST /sso/token": (request) => {
      // WorkOS takes the client's credentials in the form body only.
      if (
        request.headers.authorization !== undefined ||
        request.form["client_id"] !== CLIENT_ID ||
        request.form["client_secret"] !== CLIENT_SECRET
      ) {
        return { status: 401, json: { error: "invalid_client", error_description: "Invalid client secret." } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "The code has expired." } };
      }
      return { json: answer };
    },
  });
}

describe("workos", () => {
  it("sends the browser to authorize without a scope, passing the client's parameters on, workos_provider as provider", async () => {
    const standIn = await standInWorkOS();
    const { url, secret } = await providerAt(workos, standIn.url).authorize({
      state: "flow-id",
      scopes: ["ignored"],
      params: [
        ["connection", "conn_123"],
        ["organization", "org_123"],
        ["workos_provider", "GoogleOAuth"],
        ["login_hint", "todd@example.com"],
        ["domain_hint", "example.com"],
      ],
    });
    expect(secret).toBeUndefined();
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe(`${standIn.url}/sso/authorize`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      connection: "conn_123",
      organization: "org_123",
      provider: "GoogleOAuth",
      login_hint: "todd@example.com",
      domain_hint: "example.com",
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "flow-id",
    });
    expect(target.searchParams.has("scope")).toBe(false);
  });

  it("leaves out what the profile does not have: no organization, a first name only", async () => {
    const standIn = await standInWorkOS({
      access_token: "workos_access",
      profile: { ...PROFILE, organization_id: null, last_name: null },
    });
    const { profile } = await providerAt(workos, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(profile.claims).toMatchObject({ name: "Todd", full_name: "Todd" });
    expect(profile.claims["custom_claims"]).toEqual({ connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5" });
  });

  it("fails at the profile when the token answer carries no profile", async () => {
    const standIn = await standInWorkOS({ access_token: "workos_access" });
    const failure = await providerAt(workos, standIn.url)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "workos", stage: "profile" });
  });
});
