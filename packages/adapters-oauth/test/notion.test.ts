import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { notion } from "../src/providers/notion.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const OWNER = {
  type: "user",
  user: {
    object: "user",
    id: "e79a0b74-3aba-4149-9f74-0bb5791a6ee6",
    name: "Avocado Lovelace",
    avatar_url: "https://secure.notion-static.example/avatar.png",
    type: "person",
    person: { email: "Avo@Example.com" },
  },
};
/** /v1/users/me for a public integration's token: the bot, owned by the user who installed it. */
const BOT = {
  object: "user",
  id: "16d84278-ab0e-484c-9bdd-b35da3bd8905",
  name: "Latchkey sign-in",
  avatar_url: null,
  type: "bot",
  bot: { owner: OWNER, workspace_name: "Avocado's Notion" },
};

/** api.notion.com's /v1, played by one stand-in (EXTERNAL_NOTION_URL). */
function standInNotion(me: object = BOT): Promise<StandIn> {
  return startStandIn({
    "POST /v1/oauth/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "Invalid code." } };
      }
      return {
        json: {
          access_token: "secret_notion",
          token_type: "bearer",
          bot_id: BOT.id,
          workspace_id: "b1c2d3",
          workspace_name: "Avocado's Notion",
          owner: OWNER,
          duplicated_template_id: null,
        },
      };
    },
    "GET /v1/users/me": (request) => {
      if (request.headers.authorization !== "Bearer secret_notion") {
        return { status: 401, json: { object: "error", status: 401, code: "unauthorized" } };
      }
      if (request.headers["notion-version"] !== "2021-08-16") {
        return { status: 400, json: { object: "error", status: 400, code: "missing_version" } };
      }
      return { json: me };
    },
  });
}

describe("notion", () => {
  it("lets a client's own owner parameter replace owner=user, and authorizes at api.notion.com by default", async () => {
    const { url } = await providerAt(notion, "", { url: undefined }).authorize({
      state: "s",
      scopes: [],
      params: [["owner", "workspace"]],
    });
    const target = new URL(url);
    expect(`${target.origin}${target.pathname}`).toBe("https://api.notion.com/v1/oauth/authorize");
    expect(target.searchParams.getAll("owner")).toEqual(["workspace"]);
  });

  it("fails at the profile for a bot that a workspace, not a user, owns", async () => {
    const standIn = await standInNotion({ ...BOT, bot: { owner: { type: "workspace", workspace: true } } });
    const failure = await providerAt(notion, standIn.url)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({
      provider: "notion",
      stage: "profile",
      message: "notion: answered a bot that no user owns",
    });
  });
});
