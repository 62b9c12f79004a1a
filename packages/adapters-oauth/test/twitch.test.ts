import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { twitch } from "../src/providers/twitch.ts";
import {
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

/** Helix's user object, as documented. */
const USER = {
  id: "141981764",
  login: "twitchdev",
  display_name: "TwitchDev",
  type: "",
  broadcaster_type: "partner",
  description: "Supporting third-party developers building Twitch integrations.",
  profile_image_url: "https://static-cdn.jtvnw.net/jtv_user_pictures/profile.png",
  offline_image_url: "https://static-cdn.jtvnw.net/jtv_user_pictures/offline.png",
  view_count: 5980557,
  email: "not-real@email.com",
  created_at: "2016-12-14T20:32:28Z",
};

/** id.twitch.tv's token endpoint and api.twitch.tv's Helix, both on the one stand-in EXTERNAL_TWITCH_URL names. */
function standInTwitch(users: object[] = [USER]): Promise<StandIn> {
  return startStandIn({
    "POST /oauth2/token": (request) => {
      // Twitch takes the client's credentials in the form body only.
      if (
        request.headers.authorization !== undefined ||
        request.form["client_id"] !== CLIENT_ID ||
        request.form["client_secret"] !== CLIENT_SECRET
      ) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { status: 400, message: "Invalid authorization code" } };
      }
      return {
        json: {
          access_token: "twitch_access",
          refresh_token: "twitch_refresh",
          expires_in: 14346,
          scope: ["user:read:email"],
          token_type: "bearer",
        },
      };
    },
    "GET /helix/users": (request: StandInRequest) => {
      if (request.headers["client-id"] !== CLIENT_ID) {
        return { status: 401, json: { error: "Unauthorized", status: 401, message: "Client-Id header required" } };
      }
      if (request.headers.authorization !== "Bearer twitch_access") {
        return { status: 401, json: { error: "Unauthorized", status: 401, message: "Invalid OAuth token" } };
      }
      return { json: { data: users } };
    },
  });
}

describe("twitch", () => {
  it("fails at the profile when Helix answers no user", async () => {
    const standIn = await standInTwitch([]);
    const failure = await providerAt(twitch, standIn.url)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "twitch", stage: "profile", message: "twitch: answered no user" });
  });
});
