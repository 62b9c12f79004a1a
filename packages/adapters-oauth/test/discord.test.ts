import { OAuthProviderFailure } from "@latchkey/domain";
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
  it("sends the browser to authorize with `email identify` plus the asked scopes", async () => {
    const standIn = await standInDiscord();
    const { url, secret } = await providerAt(discord, standIn.url).authorize({
      state: "flow-id",
      scopes: ["guilds"],
      params: [["prompt", "none"]],
    });
    expect(secret).toBeUndefined();
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe(`${standIn.url}/api/oauth2/authorize`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      prompt: "none",
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "flow-id",
      scope: "email identify guilds",
    });
    expect(url).toContain("scope=email%20identify%20guilds");
  });

  it("authorizes at discord.com without EXTERNAL_DISCORD_URL", async () => {
    const { url } = await providerAt(discord, "", { url: undefined }).authorize({ state: "s", scopes: [], params: [] });
    expect(url.split("?")[0]).toBe("https://discord.com/api/oauth2/authorize");
  });

  it("exchanges the code with HTTP Basic, then reads a legacy user as username#discriminator with a GIF avatar", async () => {
    const standIn = await standInDiscord();
    const signIn = await providerAt(discord, standIn.url).complete({
      params: { code: "the-code", state: "s" },
      secret: null,
    });
    const [exchange] = standIn.requestsTo("POST /api/oauth2/token");
    expect(exchange?.form).toEqual({ grant_type: "authorization_code", code: "the-code", redirect_uri: REDIRECT_URI });
    const avatar = "https://cdn.discordapp.com/avatars/80351110224678912/a_8342729096ea3675442027381ff50dfe.gif";
    expect(signIn).toEqual({
      tokens: { accessToken: "discord_access", refreshToken: "discord_refresh" },
      profile: {
        subject: "80351110224678912",
        claims: {
          iss: `${standIn.url}/api`,
          sub: "80351110224678912",
          provider_id: "80351110224678912",
          name: "Nelly#1337",
          full_name: "Nelly",
          avatar_url: avatar,
          picture: avatar,
          custom_claims: { global_name: "Nelly the Great" },
        },
        emails: [{ address: "nelly@discord.example", verified: true, primary: true }],
      },
    });
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

  it("fails at the exchange when Discord refuses the code, without its words in the message", async () => {
    const standIn = await standInDiscord();
    const failure = await providerAt(discord, standIn.url)
      .complete({ params: { code: "wrong" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "discord", stage: "exchange", message: "discord: answered 400" });
    expect(JSON.stringify((failure as Error).cause)).toContain("invalid_grant");
  });

  it("fails at the profile when the API refuses the token", async () => {
    const standIn = await standInDiscord(LEGACY, "revoked");
    await expect(
      providerAt(discord, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "discord", stage: "profile", message: "discord: answered 401" });
  });
});
