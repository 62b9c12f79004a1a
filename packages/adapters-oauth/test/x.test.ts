import { createHash } from "node:crypto";
import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { x } from "../src/providers/x.ts";
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

const USER_FIELDS = "id,name,username,confirmed_email,profile_image_url,url,created_at";
const USER = {
  id: "2244994945",
  name: "X Developers",
  username: "XDevelopers",
  confirmed_email: "dev@example.com",
  profile_image_url: "https://pbs.twimg.com/profile_images/normal.jpg",
  url: "https://t.co/3ZX3TNiZCY",
  created_at: "2013-12-14T04:35:55.000Z",
};

/**
 * x.com's authorize and api.x.com's token and users/me, on the one stand-in EXTERNAL_X_URL names. `challenges`
 * holds the code_challenge the authorization URL carried, as X keeps it with the code it issues.
 */
function standInX(challenges: Map<string, string>, user: object = USER): Promise<StandIn> {
  return startStandIn({
    "POST /2/oauth2/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      const code = request.form["code"] ?? "";
      const challenge = challenges.get(code);
      const verifier = request.form["code_verifier"] ?? "";
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["redirect_uri"] !== REDIRECT_URI ||
        challenge === undefined ||
        createHash("sha256").update(verifier).digest("base64url") !== challenge
      ) {
        return { status: 400, json: { error: "invalid_request", error_description: "Value passed was invalid." } };
      }
      challenges.delete(code);
      return {
        json: {
          token_type: "bearer",
          expires_in: 7200,
          access_token: "x_access",
          scope: "users.email tweet.read users.read offline.access",
          refresh_token: "x_refresh",
        },
      };
    },
    "GET /2/users/me": (request: StandInRequest) => {
      if (request.headers.authorization !== "Bearer x_access") {
        return { status: 401, json: { title: "Unauthorized", type: "about:blank", status: 401 } };
      }
      if (request.query.get("user.fields") !== USER_FIELDS) return { status: 400, json: { errors: [] } };
      return { json: { data: user } };
    },
  });
}

/** Authorizes, then plays X issuing `the-code` for the challenge the URL carried. */
async function authorizeAt(standIn: StandIn, challenges: Map<string, string>) {
  const start = await providerAt(x, standIn.url).authorize({ state: "flow-id", scopes: ["like.read"], params: [] });
  challenges.set("the-code", new URL(start.url).searchParams.get("code_challenge") ?? "");
  return start;
}

describe("x", () => {
  it("reports no address when X has no confirmed email", async () => {
    const challenges = new Map<string, string>();
    const { confirmed_email: _, ...withoutEmail } = USER;
    const standIn = await standInX(challenges, withoutEmail);
    const { secret } = await authorizeAt(standIn, challenges);
    const { profile } = await providerAt(x, standIn.url).complete({
      params: { code: "the-code" },
      secret: secret ?? null,
    });
    expect(profile.emails).toEqual([]);
  });

  it("fails at the exchange without the kept verifier, and when the verifier does not match the challenge", async () => {
    const challenges = new Map<string, string>();
    const standIn = await standInX(challenges);
    await authorizeAt(standIn, challenges);
    const missing = await providerAt(x, standIn.url)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OAuthProviderFailure);
    expect(missing).toMatchObject({ provider: "x", stage: "exchange" });
    expect(standIn.requestsTo("POST /2/oauth2/token")).toEqual([]);

    const other = await providerAt(x, standIn.url).authorize({ state: "other", scopes: [], params: [] });
    const failure = await providerAt(x, standIn.url)
      .complete({ params: { code: "the-code" }, secret: other.secret ?? null })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ provider: "x", stage: "exchange", message: "x: answered 400" });
  });

  it("fails at the profile when X answers no user", async () => {
    const challenges = new Map<string, string>();
    const standIn = await standInX(challenges, {});
    const { secret } = await authorizeAt(standIn, challenges);
    await expect(
      providerAt(x, standIn.url).complete({ params: { code: "the-code" }, secret: secret ?? null }),
    ).rejects.toMatchObject({ provider: "x", stage: "profile", message: "x: answered no user" });
  });
});
