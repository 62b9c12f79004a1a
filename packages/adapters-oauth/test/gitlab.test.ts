import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { gitlab } from "../src/providers/gitlab.ts";
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

const USER = {
  id: 1,
  username: "john_smith",
  name: "John Smith",
  state: "active",
  avatar_url: "https://gitlab.example/uploads/-/system/user/avatar/1/index.jpg",
  web_url: "https://gitlab.example/john_smith",
  email: "John@Example.com",
  confirmed_at: "2012-05-23T09:05:22Z",
};
/** GitLab's further addresses, with their own confirmed_at, which GoTrue does not read. */
const EMAILS = [
  { id: 1, email: "john@work.example", confirmed_at: "2021-03-26T19:07:56.248Z" },
  { id: 3, email: "old@example.com", confirmed_at: null },
];

/** A GitLab instance (EXTERNAL_GITLAB_URL): OAuth under /oauth, the API under /api/v4. */
function standInGitLab(overrides: { user?: object; emails?: Reply } = {}): Promise<StandIn> {
  const bearer = (request: StandInRequest) => request.headers.authorization === "Bearer glpat_access";
  const refused = { status: 401, json: { message: "401 Unauthorized" } };
  return startStandIn({
    "POST /oauth/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client", error_description: "Client authentication failed" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "The provided grant is invalid" } };
      }
      return {
        json: {
          access_token: "glpat_access",
          token_type: "Bearer",
          expires_in: 7200,
          refresh_token: "gl_refresh",
          scope: "read_user",
          created_at: 1607635748,
        },
      };
    },
    "GET /api/v4/user": (request) => (bearer(request) ? { json: overrides.user ?? USER } : refused),
    "GET /api/v4/user/emails": (request) => (bearer(request) ? (overrides.emails ?? { json: EMAILS }) : refused),
  });
}

describe("gitlab", () => {
  it("sends the browser to the instance's /oauth/authorize with read_user plus the asked scopes", async () => {
    const standIn = await standInGitLab();
    const { url, secret } = await providerAt(gitlab, standIn.url).authorize({
      state: "flow-id",
      scopes: ["read_api"],
      params: [],
    });
    expect(secret).toBeUndefined();
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe(`${standIn.url}/oauth/authorize`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "flow-id",
      scope: "read_user read_api",
    });
    expect(url).toContain("scope=read_user%20read_api");
  });

  it("authorizes at gitlab.com without EXTERNAL_GITLAB_URL", async () => {
    const { url } = await providerAt(gitlab, "", { url: undefined }).authorize({ state: "s", scopes: [], params: [] });
    expect(url.split("?")[0]).toBe("https://gitlab.com/oauth/authorize");
  });

  it("exchanges the code with HTTP Basic; the /user address is primary and verified, the others neither", async () => {
    const standIn = await standInGitLab();
    const signIn = await providerAt(gitlab, standIn.url).complete({
      params: { code: "the-code", state: "s" },
      secret: null,
    });
    const [exchange] = standIn.requestsTo("POST /oauth/token");
    expect(exchange?.form).toEqual({ grant_type: "authorization_code", code: "the-code", redirect_uri: REDIRECT_URI });
    expect(signIn).toEqual({
      tokens: { accessToken: "glpat_access", refreshToken: "gl_refresh" },
      profile: {
        subject: "1",
        claims: {
          iss: standIn.url,
          sub: "1",
          provider_id: "1",
          name: "John Smith",
          full_name: "John Smith",
          avatar_url: "https://gitlab.example/uploads/-/system/user/avatar/1/index.jpg",
          picture: "https://gitlab.example/uploads/-/system/user/avatar/1/index.jpg",
        },
        emails: [
          { address: "john@work.example", verified: false, primary: false },
          { address: "old@example.com", verified: false, primary: false },
          { address: "John@Example.com", verified: true, primary: true },
        ],
      },
    });
  });

  it("reports an unconfirmed primary address as unverified, and lists it once when /user/emails repeats it", async () => {
    const standIn = await standInGitLab({
      user: { ...USER, confirmed_at: null },
      emails: { json: [{ id: 7, email: "john@example.com", confirmed_at: null }] },
    });
    const signIn = await providerAt(gitlab, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(signIn.profile.emails).toEqual([{ address: "John@Example.com", verified: false, primary: true }]);
  });

  it("fails at the exchange when GitLab refuses the code, without its words in the message", async () => {
    const standIn = await standInGitLab();
    const failure = await providerAt(gitlab, standIn.url)
      .complete({ params: { code: "wrong" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "gitlab", stage: "exchange", message: "gitlab: answered 400" });
    expect((failure as Error).message).not.toContain("grant");
    expect(JSON.stringify((failure as Error).cause)).toContain("invalid_grant");
  });

  it("fails at the profile when /user/emails fails", async () => {
    const standIn = await standInGitLab({ emails: { status: 500, json: { message: "500 Internal Server Error" } } });
    await expect(
      providerAt(gitlab, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "gitlab", stage: "profile", message: "gitlab: answered 500" });
  });
});
