import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { github } from "../src/providers/github.ts";
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

const USER = { id: 4001, login: "octocat", name: "The Octocat", avatar_url: "https://avatars.example/u/4001" };
const EMAILS = [
  { email: "old@example.com", verified: false, primary: false, visibility: null },
  { email: "Octo@Example.com", verified: true, primary: true, visibility: "public" },
];

/** GitHub Enterprise Server's layout: OAuth under /login/oauth, the API under /api/v3. */
function standInGitHub(overrides: { token?: (request: StandInRequest) => object } = {}): Promise<StandIn> {
  const bearer = (request: StandInRequest) => request.headers.authorization === "Bearer gho_access";
  return startStandIn({
    "POST /login/oauth/access_token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET) {
        return { json: { error: "incorrect_client_credentials" } };
      }
      if (request.form["code"] !== "the-code" || request.form["redirect_uri"] !== REDIRECT_URI) {
        // GitHub answers a bad code with 200 and an error.
        return { json: { error: "bad_verification_code", error_description: "The code passed is incorrect" } };
      }
      return {
        json: overrides.token?.(request) ?? { access_token: "gho_access", token_type: "bearer", scope: "user:email" },
      };
    },
    "GET /api/v3/user": (request) =>
      bearer(request) ? { json: USER } : { status: 401, json: { message: "Bad credentials" } },
    "GET /api/v3/user/emails": (request) =>
      bearer(request) ? { json: EMAILS } : { status: 401, json: { message: "Bad credentials" } },
  });
}

describe("github", () => {
  it("sends the browser to authorize with the client, the callback, the state and user:email plus the asked scopes", async () => {
    const standIn = await standInGitHub();
    const { url, secret } = await providerAt(github, standIn.url).authorize({
      state: "flow-id",
      scopes: ["repo", "read:org"],
      params: [["login", "octocat"]],
    });
    expect(secret).toBeUndefined();
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe(`${standIn.url}/login/oauth/authorize`);
    expect(Object.fromEntries(target.searchParams)).toEqual({
      login: "octocat",
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: "flow-id",
      scope: "user:email repo read:org",
    });
    expect(url).toContain("scope=user%3Aemail%20repo%20read%3Aorg");
  });

  it("exchanges the code with HTTP Basic, then reads the user and every address with its own flags", async () => {
    const standIn = await standInGitHub();
    const signIn = await providerAt(github, standIn.url).complete({
      params: { code: "the-code", state: "s" },
      secret: null,
    });
    const [exchange] = standIn.requestsTo("POST /login/oauth/access_token");
    expect(exchange?.form).toEqual({ grant_type: "authorization_code", code: "the-code", redirect_uri: REDIRECT_URI });
    expect(exchange?.headers.accept).toBe("application/json");
    expect(signIn).toEqual({
      tokens: { accessToken: "gho_access", refreshToken: null },
      profile: {
        subject: "4001",
        claims: {
          iss: `${standIn.url}/api/v3`,
          sub: "4001",
          provider_id: "4001",
          name: "The Octocat",
          full_name: "The Octocat",
          avatar_url: "https://avatars.example/u/4001",
          preferred_username: "octocat",
          user_name: "octocat",
        },
        emails: [
          { address: "old@example.com", verified: false, primary: false },
          { address: "Octo@Example.com", verified: true, primary: true },
        ],
      },
    });
  });

  it("fails at the exchange on GitHub's 200 error, without the provider's words in the message", async () => {
    const standIn = await standInGitHub();
    const failure = await providerAt(github, standIn.url)
      .complete({ params: { code: "wrong" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "github", stage: "exchange" });
    expect((failure as Error).message).not.toContain("incorrect");
    expect(JSON.stringify((failure as Error).cause)).toContain("bad_verification_code");
  });

  it("fails at the profile when the API refuses the token", async () => {
    const standIn = await standInGitHub({ token: () => ({ access_token: "revoked", token_type: "bearer" }) });
    await expect(
      providerAt(github, standIn.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "profile", message: "github: answered 401" });
  });

  it("gives up on a provider that does not answer in time, and never follows a redirect elsewhere", async () => {
    const elsewhere = await startStandIn({ "POST /steal": () => ({ json: { access_token: "x" } }) });
    const redirecting = await startStandIn({
      "POST /login/oauth/access_token": () => ({ status: 307, headers: { Location: `${elsewhere.url}/steal` } }),
    });
    await expect(
      providerAt(github, redirecting.url).complete({ params: { code: "c" }, secret: null }),
    ).rejects.toMatchObject({ stage: "exchange", message: "github: answered 307" });
    expect(elsewhere.requests).toEqual([]);

    const hanging = await startStandIn({ "POST /login/oauth/access_token": () => "hang" });
    await expect(
      providerAt(github, hanging.url, {}, 200).complete({ params: { code: "c" }, secret: null }),
    ).rejects.toMatchObject({ stage: "exchange", message: "github: could not be reached" });
  });
});
