import { afterEach, describe, expect, it } from "vitest";
import { providerContext } from "../src/create-oauth-providers.ts";
import { oauth2Provider } from "../src/oauth2/oauth2-provider.ts";
import { bitbucket } from "../src/providers/bitbucket.ts";
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

const UUID = "{0c5d1a2e-7d6b-4f1e-9a3c-2b8e4f6a1d90}";
const USER = {
  type: "user",
  uuid: UUID,
  account_id: "557058:1f2e3d4c",
  display_name: "Ada Lovelace",
  nickname: "ada",
  links: {
    self: { href: "https://api.bitbucket.org/2.0/users/%7B0c5d1a2e%7D" },
    avatar: { href: "https://avatar-management.example/ada.png" },
    html: { href: "https://bitbucket.org/%7B0c5d1a2e%7D/" },
  },
};
const FIRST_PAGE = [
  { type: "email", email: "old@example.com", is_primary: false, is_confirmed: false },
  { type: "email", email: "ada@work.example", is_primary: false, is_confirmed: true },
];
const SECOND_PAGE = [{ type: "email", email: "Ada@Example.com", is_primary: true, is_confirmed: true }];

/** Bitbucket's hosts played by one stand-in: OAuth under /site/oauth2, the API under /2.0 (EXTERNAL_BITBUCKET_URL). */
function standInBitbucket(
  overrides: { token?: (request: StandInRequest) => object; next?: string } = {},
): Promise<StandIn> {
  const bearer = (request: StandInRequest) => request.headers.authorization === "Bearer bb_access";
  const refused = { status: 401, json: { type: "error", error: { message: "Access token expired." } } };
  return startStandIn({
    "POST /site/oauth2/access_token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client", error_description: "Invalid OAuth client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "The code is not valid" } };
      }
      return {
        json: overrides.token?.(request) ?? {
          access_token: "bb_access",
          token_type: "bearer",
          expires_in: 7200,
          refresh_token: "bb_refresh",
          scopes: "account email",
        },
      };
    },
    "GET /2.0/user": (request) => (bearer(request) ? { json: USER } : refused),
    "GET /2.0/user/emails": (request) => {
      if (!bearer(request)) return refused;
      // Bitbucket pages by 10 and links the next page absolutely.
      return request.query.get("page") === "2"
        ? { json: { pagelen: 10, size: 3, page: 2, values: SECOND_PAGE } }
        : {
            json: {
              pagelen: 10,
              size: 3,
              page: 1,
              next: overrides.next ?? `http://${request.headers.host}/2.0/user/emails?page=2`,
              values: FIRST_PAGE,
            },
          };
    },
  });
}

describe("bitbucket", () => {
  it("never follows a next page that leaves the API, so the token stays with Bitbucket", async () => {
    const elsewhere = await startStandIn({});
    const standIn = await standInBitbucket({ next: `${elsewhere.url}/2.0/user/emails?page=2` });
    const signIn = await providerAt(bitbucket, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(elsewhere.requests).toEqual([]);
    expect(signIn.profile.emails.map((email) => email.address)).toEqual(["old@example.com", "ada@work.example"]);
  });

  it("uses bitbucket.org for OAuth and api.bitbucket.org/2.0 for the API without EXTERNAL_BITBUCKET_URL", async () => {
    const calls: string[] = [];
    const answers: Record<string, unknown> = {
      "https://bitbucket.org/site/oauth2/access_token": { access_token: "bb_access", token_type: "bearer" },
      "https://api.bitbucket.org/2.0/user": USER,
      "https://api.bitbucket.org/2.0/user/emails": { values: SECOND_PAGE },
    };
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = input instanceof Request ? input.url : String(input);
      calls.push(url);
      return Response.json(answers[url] ?? {}, { status: url in answers ? 200 : 404 });
    };
    const provider = oauth2Provider(
      bitbucket,
      providerContext("bitbucket", settingsFor("", { url: undefined }), fetch),
    );
    const { url } = await provider.authorize({ state: "s", scopes: [], params: [] });
    const signIn = await provider.complete({ params: { code: "c" }, secret: null });
    expect(url.split("?")[0]).toBe("https://bitbucket.org/site/oauth2/authorize");
    expect(calls).toEqual(Object.keys(answers));
    expect(signIn.profile.claims["iss"]).toBe("https://api.bitbucket.org/2.0");
  });
});
