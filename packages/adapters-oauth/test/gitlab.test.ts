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
  it("authorizes at gitlab.com without EXTERNAL_GITLAB_URL", async () => {
    const { url } = await providerAt(gitlab, "", { url: undefined }).authorize({ state: "s", scopes: [], params: [] });
    expect(url.split("?")[0]).toBe("https://gitlab.com/oauth/authorize");
  });

  it("reports an unconfirmed primary address as unverified, and lists it once when /user/emails repeats it", async () => {
    const standIn = await standInGitLab({
      user: { ...USER, confirmed_at: null },
      emails: { json: [{ id: 7, email: "john@example.com", confirmed_at: null }] },
    });
    const signIn = await providerAt(gitlab, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(signIn.profile.emails).toEqual([{ address: "John@Example.com", verified: false, primary: true }]);
  });

  it("fails at the profile when /user/emails fails", async () => {
    const standIn = await standInGitLab({ emails: { status: 500, json: { message: "500 Internal Server Error" } } });
    await expect(
      providerAt(gitlab, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ provider: "gitlab", stage: "profile", message: "gitlab: answered 500" });
  });
});
