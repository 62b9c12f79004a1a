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

  it("fails at the profile when /v1/me answers a user without an id", async () => {
    const standIn = await standInFigma({ me: () => ({ handle: "ghost" }) });
    await expect(
      providerAt(figma, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "figma", stage: "profile", message: "figma: answered a user without an id" });
  });
});
