import { afterEach, describe, expect, it } from "vitest";
import { discord } from "../src/providers/discord.ts";
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

/** A user of the legacy username system, with an animated avatar. */
const LEGACY = {
  id: "80351110224678912",
  username: "Nelly",
  discriminator: "1337",
  global_name: "Nelly the Great",
  avatar: "a_8342729096ea3675442027381ff50dfe",
  email: "nelly@discord.example",
  verified: true,
  flags: 64,
  mfa_enabled: true,
};

/** Discord's API under /api, played by one stand-in (EXTERNAL_DISCORD_URL). */
function standInDiscord(user: object = LEGACY, token = "discord_access"): Promise<StandIn> {
  return startStandIn({
    "POST /api/oauth2/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: 'Invalid "code" in request.' } };
      }
      return {
        json: {
          access_token: token,
          token_type: "Bearer",
          expires_in: 604800,
          refresh_token: "discord_refresh",
          scope: "identify email",
        },
      };
    },
    "GET /api/users/@me": (request: StandInRequest) =>
      request.headers.authorization === "Bearer discord_access"
        ? { json: user }
        : { status: 401, json: { message: "401: Unauthorized", code: 0 } },
  });
}

async function signInAs(user: object) {
  const standIn = await standInDiscord(user);
  return providerAt(discord, standIn.url).complete({ params: { code: "the-code" }, secret: null });
}

describe("discord", () => {
  it("authorizes at discord.com without EXTERNAL_DISCORD_URL", async () => {
    const { url } = await providerAt(discord, "", { url: undefined }).authorize({ state: "s", scopes: [], params: [] });
    expect(url.split("?")[0]).toBe("https://discord.com/api/oauth2/authorize");
  });

  it("names a migrated user (discriminator 0) by username alone, with the new system's default avatar", async () => {
    const signIn = await signInAs({ ...LEGACY, discriminator: "0", avatar: null, verified: false });
    // (80351110224678912 >> 22) % 6 = 5
    const avatar = "https://cdn.discordapp.com/embed/avatars/5.png";
    expect(signIn.profile).toEqual({
      subject: "80351110224678912",
      claims: expect.objectContaining({ name: "Nelly", full_name: "Nelly", avatar_url: avatar, picture: avatar }),
      emails: [{ address: "nelly@discord.example", verified: false, primary: true }],
    });
  });

  it("gives a legacy user without an avatar the default of discriminator % 5, and a PNG for a still avatar", async () => {
    const legacy = await signInAs({ ...LEGACY, avatar: null });
    expect(legacy.profile.claims["avatar_url"]).toBe("https://cdn.discordapp.com/embed/avatars/2.png");
    const still = await signInAs({ ...LEGACY, avatar: "8342729096ea3675442027381ff50dfe" });
    expect(still.profile.claims["picture"]).toBe(
      "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    );
  });

  it("signs in a user whose discriminator is not a number and who has no avatar (GoTrue fails here)", async () => {
    const signIn = await signInAs({
      id: "80351110224678912",
      username: "nelly",
      discriminator: "abc",
      global_name: null,
      avatar: null,
    });
    expect(signIn.profile).toEqual({
      subject: "80351110224678912",
      claims: {
        iss: expect.stringMatching(/\/api$/),
        sub: "80351110224678912",
        provider_id: "80351110224678912",
        name: "nelly",
        full_name: "nelly",
        avatar_url: "https://cdn.discordapp.com/embed/avatars/5.png",
        picture: "https://cdn.discordapp.com/embed/avatars/5.png",
      },
      emails: [],
    });
  });
});
