import { OAuthProviderFailure } from "@latchkey/domain";
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
  it("sends the browser to authorize with the three user scopes plus the asked ones", async () => {
    const standIn = await standInSnapchat();
    const { url, secret } = await providerAt(snapchat, standIn.url).authorize({
      state: "flow-id",
      scopes: ["https://auth.snapchat.com/oauth2/api/user.email"],
      params: [],
    });
    expect(secret).toBeUndefined();
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe(`${standIn.url}/accounts/oauth2/auth`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "flow-id",
      scope:
        "https://auth.snapchat.com/oauth2/api/user.external_id https://auth.snapchat.com/oauth2/api/user.display_name " +
        "https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar https://auth.snapchat.com/oauth2/api/user.email",
    });
  });

  it("exchanges the code with HTTP Basic, then reads the user through the GraphQL query, without an email", async () => {
    const standIn = await standInSnapchat();
    const signIn = await providerAt(snapchat, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    const [exchange] = standIn.requestsTo("POST /accounts/oauth2/token");
    expect(exchange?.form).toEqual({ grant_type: "authorization_code", code: "the-code", redirect_uri: REDIRECT_URI });
    const [me] = standIn.requestsTo("GET /v1/me");
    expect(me?.query.get("query")).toBe(ME_QUERY);
    expect(signIn).toEqual({
      tokens: { accessToken: "snap_access", refreshToken: "snap_refresh" },
      profile: {
        subject: "CAESIPx6cE3WxS0jC",
        claims: {
          iss: "https://accounts.snapchat.com/accounts/oauth2/token",
          sub: "CAESIPx6cE3WxS0jC",
          provider_id: "CAESIPx6cE3WxS0jC",
          name: "Snap Person",
          full_name: "Snap Person",
          avatar_url: "https://sdk.bitmoji.com/render/panel/avatar.png",
          picture: "https://sdk.bitmoji.com/render/panel/avatar.png",
          slug: "Snap Person",
        },
        emails: [],
      },
    });
  });

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

  it("fails at the exchange when the code is refused, without the provider's words in the message", async () => {
    const standIn = await standInSnapchat();
    const failure = await providerAt(snapchat, standIn.url)
      .complete({ params: { code: "wrong" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "snapchat", stage: "exchange", message: "snapchat: answered 400" });
    expect(JSON.stringify((failure as Error).cause)).toContain("Invalid code");
  });

  it("fails at the profile when the GraphQL answer has no user", async () => {
    const standIn = await standInSnapchat({ displayName: "No Id" });
    await expect(
      providerAt(snapchat, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "snapchat", stage: "profile" });
  });
});
