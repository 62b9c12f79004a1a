import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { slack } from "../src/providers/slack.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type Reply,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const ACCESS_TOKEN = "xoxp-1234-access";

/** openid.connect.userInfo as Slack documents it: the ids are namespaced claims, `sub` is the user id too. */
const USERINFO = {
  ok: true,
  sub: "U0R7JM",
  "https://slack.com/user_id": "U0R7JM",
  "https://slack.com/team_id": "T0R7GR",
  email: "krane@example.com",
  email_verified: true,
  date_email_verified: 1622128723,
  name: "krane",
  picture: "https://secure.gravatar.example/avatar/krane-512.png",
  given_name: "Bront",
  family_name: "Labradoodle",
  locale: "en-US",
  "https://slack.com/team_name": "kraneflannel",
  "https://slack.com/team_domain": "kraneflannel",
};

/** slack.com under EXTERNAL_SLACK_URL; every error is HTTP 200 with `ok: false`, as Slack's Web API answers. */
function standInSlack(userinfo: (request: StandInRequest) => Reply = () => ({ json: USERINFO })): Promise<StandIn> {
  return startStandIn({
    "POST /api/openid.connect.token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { ok: false, error: "invalid_client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { json: { ok: false, error: "invalid_code" } };
      }
      return {
        json: { ok: true, access_token: ACCESS_TOKEN, token_type: "Bearer", id_token: "eyJ.not-read" },
      };
    },
    "GET /api/openid.connect.userInfo": (request) =>
      request.headers.authorization === `Bearer ${ACCESS_TOKEN}`
        ? userinfo(request)
        : { json: { ok: false, error: "invalid_auth" } },
  });
}

describe("slack", () => {
  it("reports an unverified address as such", async () => {
    const standIn = await standInSlack(() => ({ json: { ...USERINFO, email_verified: false } }));
    const { profile } = await providerAt(slack, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(profile.emails).toEqual([{ address: "krane@example.com", verified: false, primary: true }]);
  });

  it("fails at the exchange on Slack's 200 ok:false, without Slack's words", async () => {
    const standIn = await standInSlack();
    const failure = await providerAt(slack, standIn.url)
      .complete({ params: { code: "wrong" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "slack", stage: "exchange", message: "slack: refused the code" });
    expect(JSON.stringify((failure as Error).cause)).toContain("invalid_code");
  });

  it("fails at the profile on userinfo's 200 ok:false, and on a user without Slack's user id", async () => {
    const refused = await standInSlack(() => ({ json: { ok: false, error: "token_revoked" } }));
    const failure = await providerAt(slack, refused.url)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "slack", stage: "profile", message: "slack: refused the token" });
    expect(JSON.stringify((failure as Error).cause)).toContain("token_revoked");

    const { "https://slack.com/user_id": _, ...withoutUserId } = USERINFO;
    const anonymous = await standInSlack(() => ({ json: withoutUserId }));
    await expect(
      providerAt(slack, anonymous.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "profile", message: "slack: answered a user without an id" });
  });

  it("offers no id_token grant", async () => {
    const standIn = await standInSlack();
    expect(providerAt(slack, standIn.url).idTokens).toBeUndefined();
  });
});
