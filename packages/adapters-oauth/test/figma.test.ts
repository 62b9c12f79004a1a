import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { providerContext } from "../src/create-oauth-providers.ts";
import { oauth2Provider } from "../src/oauth2/oauth2-provider.ts";
import { figma } from "../src/providers/figma.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  type StandInRequest,
  settingsFor,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const ME = {
  id: "1118841234567890123",
  email: "Designer@Example.com",
  handle: "Grace H.",
  img_url: "https://s3-alpha.figma.example/profile/grace.png",
};

/** www.figma.com's /oauth and api.figma.com's /v1, both played by one stand-in (EXTERNAL_FIGMA_URL). */
function standInFigma(overrides: { me?: (request: StandInRequest) => object } = {}): Promise<StandIn> {
  return startStandIn({
    "POST /v1/oauth/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: true, status: 401, message: "Invalid client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: true, status: 400, message: "Invalid code" } };
      }
      return {
        json: {
          user_id_string: ME.id,
          access_token: "figu_access",
          token_type: "bearer",
          refresh_token: "figur_refresh",
          expires_in: 7776000,
        },
      };
    },
    "GET /v1/me": (request) =>
      request.headers.authorization === "Bearer figu_access"
        ? { json: overrides.me?.(request) ?? ME }
        : { status: 403, json: { status: 403, err: "Invalid token" } },
  });
}

describe("figma", () => {
  it("sends the browser to /oauth with current_user:read plus the asked scopes", async () => {
    const standIn = await standInFigma();
    const { url, secret } = await providerAt(figma, standIn.url).authorize({
      state: "flow-id",
      scopes: ["file_content:read"],
      params: [],
    });
    expect(secret).toBeUndefined();
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe(`${standIn.url}/oauth`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "flow-id",
      scope: "current_user:read file_content:read",
    });
    expect(url).toContain("scope=current_user%3Aread%20file_content%3Aread");
  });

  it("exchanges the code with HTTP Basic, then reads the user: the handle as name, img_url as avatar_url only", async () => {
    const standIn = await standInFigma();
    const signIn = await providerAt(figma, standIn.url).complete({
      params: { code: "the-code", state: "s" },
      secret: null,
    });
    const [exchange] = standIn.requestsTo("POST /v1/oauth/token");
    expect(exchange?.form).toEqual({ grant_type: "authorization_code", code: "the-code", redirect_uri: REDIRECT_URI });
    expect(signIn).toEqual({
      tokens: { accessToken: "figu_access", refreshToken: "figur_refresh" },
      profile: {
        subject: "1118841234567890123",
        claims: {
          iss: standIn.url,
          sub: "1118841234567890123",
          provider_id: "1118841234567890123",
          name: "Grace H.",
          full_name: "Grace H.",
          avatar_url: "https://s3-alpha.figma.example/profile/grace.png",
        },
        emails: [{ address: "Designer@Example.com", verified: true, primary: true }],
      },
    });
  });

  it("uses www.figma.com to authorize and api.figma.com otherwise without EXTERNAL_FIGMA_URL", async () => {
    const calls: string[] = [];
    const answers: Record<string, unknown> = {
      "https://api.figma.com/v1/oauth/token": { access_token: "figu_access", token_type: "bearer" },
      "https://api.figma.com/v1/me": ME,
    };
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = input instanceof Request ? input.url : String(input);
      calls.push(url);
      return Response.json(answers[url] ?? {}, { status: url in answers ? 200 : 404 });
    };
    const provider = oauth2Provider(figma, providerContext("figma", settingsFor("", { url: undefined }), fetch));
    const { url } = await provider.authorize({ state: "s", scopes: [], params: [] });
    const signIn = await provider.complete({ params: { code: "c" }, secret: null });
    expect(url.split("?")[0]).toBe("https://www.figma.com/oauth");
    expect(calls).toEqual(Object.keys(answers));
    expect(signIn.profile.claims["iss"]).toBe("https://api.figma.com");
  });

  it("fails at the exchange when Figma refuses the code, without its words in the message", async () => {
    const standIn = await standInFigma();
    const failure = await providerAt(figma, standIn.url)
      .complete({ params: { code: "wrong" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "figma", stage: "exchange", message: "figma: answered 400" });
    expect(JSON.stringify((failure as Error).cause)).toContain("Invalid code");
  });

  it("fails at the profile when /v1/me answers a user without an id", async () => {
    const standIn = await standInFigma({ me: () => ({ handle: "ghost" }) });
    await expect(
      providerAt(figma, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "figma", stage: "profile", message: "figma: answered a user without an id" });
  });
});
