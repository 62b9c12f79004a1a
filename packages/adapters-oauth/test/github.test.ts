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
