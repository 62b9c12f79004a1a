import { afterEach, describe, expect, it } from "vitest";
import { snapchat } from "../src/providers/snapchat.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const ME_QUERY = "{me { externalId displayName bitmoji { avatar id } email } }";
const ME = {
  externalId: "CAESIPx6cE3WxS0jC",
  displayName: "Snap Person",
  bitmoji: { avatar: "https://sdk.bitmoji.com/render/panel/avatar.png", id: "bitmoji-7" },
};

/** Login Kit's token endpoint and Kit's GraphQL /v1/me, both on the one stand-in EXTERNAL_SNAPCHAT_URL names. */
function standInSnapchat(me: object = ME): Promise<StandIn> {
  return startStandIn({
    "POST /accounts/oauth2/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "Invalid code" } };
      }
      return { json: { access_token: "snap_access", refresh_token: "snap_refresh", token_type: "Bearer" } };
    },
    "GET /v1/me": (request: StandInRequest) => {
      if (request.headers.authorization !== "Bearer snap_access") return { status: 401, json: { message: "nope" } };
      if (request.query.get("query") !== ME_QUERY) return { status: 400, json: { errors: [{ message: "bad" }] } };
      return { json: { data: { me } } };
    },
  });
}

describe("snapchat", () => {
  it("reports the address an email scope brings as verified and primary", async () => {
    const standIn = await standInSnapchat({ ...ME, bitmoji: null, email: "snap@example.com" });
    const { profile } = await providerAt(snapchat, standIn.url).complete({
      params: { code: "the-code" },
      secret: null,
    });
    expect(profile.emails).toEqual([{ address: "snap@example.com", verified: true, primary: true }]);
    expect(profile.claims).not.toHaveProperty("avatar_url");
    expect(profile.claims).not.toHaveProperty("picture");
  });

  it("fails at the profile when the GraphQL answer has no user", async () => {
    const standIn = await standInSnapchat({ displayName: "No Id" });
    await expect(
      providerAt(snapchat, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "snapchat", stage: "profile" });
  });
});
