import { afterEach, describe, expect, it } from "vitest";
import { providerContext } from "../src/create-oauth-providers.ts";
import { oauth2Provider } from "../src/oauth2/oauth2-provider.ts";
import { spotify } from "../src/providers/spotify.ts";
import { SPOTIFY_ME as ME } from "./fixtures/spotify.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  settingsFor,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

/** accounts.spotify.com and api.spotify.com, both played by one stand-in (EXTERNAL_SPOTIFY_URL). */
function standInSpotify(me: object = ME): Promise<StandIn> {
  return startStandIn({
    "POST /api/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client", error_description: "Invalid client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "Invalid authorization code" } };
      }
      return {
        json: {
          access_token: "BQD_access",
          token_type: "Bearer",
          scope: "user-read-email",
          expires_in: 3600,
          refresh_token: "AQD_refresh",
        },
      };
    },
    "GET /v1/me": (request) =>
      request.headers.authorization === "Bearer BQD_access"
        ? { json: me }
        : { status: 401, json: { error: { status: 401, message: "Invalid access token" } } },
  });
}

describe("spotify", () => {
  it("reads a user without images, name or address as just its id", async () => {
    const standIn = await standInSpotify({ id: "quiet", display_name: null, images: [] });
    const signIn = await providerAt(spotify, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(signIn.profile).toEqual({
      subject: "quiet",
      claims: { iss: `${standIn.url}/v1`, sub: "quiet", provider_id: "quiet" },
      emails: [],
    });
  });

  it("uses accounts.spotify.com for OAuth and api.spotify.com/v1 for the API without EXTERNAL_SPOTIFY_URL", async () => {
    const calls: string[] = [];
    const answers: Record<string, unknown> = {
      "https://accounts.spotify.com/api/token": { access_token: "BQD_access", token_type: "Bearer" },
      "https://api.spotify.com/v1/me": ME,
    };
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = input instanceof Request ? input.url : String(input);
      calls.push(url);
      return Response.json(answers[url] ?? {}, { status: url in answers ? 200 : 404 });
    };
    const provider = oauth2Provider(spotify, providerContext("spotify", settingsFor("", { url: undefined }), fetch));
    const { url } = await provider.authorize({ state: "s", scopes: [], params: [] });
    const signIn = await provider.complete({ params: { code: "c" }, secret: null });
    expect(url.split("?")[0]).toBe("https://accounts.spotify.com/authorize");
    expect(calls).toEqual(Object.keys(answers));
    expect(signIn.profile.claims["iss"]).toBe("https://api.spotify.com/v1");
  });

  it("fails at the profile when /v1/me answers a user without an id", async () => {
    const standIn = await standInSpotify({ display_name: "nobody" });
    await expect(
      providerAt(spotify, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({
      provider: "spotify",
      stage: "profile",
      message: "spotify: answered a user without an id",
    });
  });
});
