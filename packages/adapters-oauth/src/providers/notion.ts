import { fieldsOf, getJson, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/** The API version GoTrue pins: the shape of the bot user read below. */
const NOTION_VERSION = "2021-08-16";

/**
 * Notion: no scopes. The token is a bot's; who signed in is the user who owns it (`bot.owner.user` of
 * /v1/users/me), whose one address counts as verified. The authorization URL carries `owner=user`, as Notion's
 * docs ask of public integrations; a client's own `owner` replaces it.
 */
export const notion: OAuth2Definition<"notion"> = {
  name: "notion",
  title: "Notion",
  defaultScopes: [],
  takesScopes: false,
  clientAuth: "basic",
  authorizeParams: [["owner", "user"]],
  endpoints(context) {
    const api = baseUrl(context, "https://api.notion.com");
    return { authorization: `${api}/v1/oauth/authorize`, token: `${api}/v1/oauth/token` };
  },
  async profile(context, answer) {
    const api = baseUrl(context, "https://api.notion.com");
    const headers = { Authorization: `Bearer ${answer.accessToken}`, "Notion-Version": NOTION_VERSION };
    const me = fieldsOf(await getJson(context.fetch, "notion", { url: `${api}/v1/users/me`, headers }));
    // A workspace-owned (internal) integration has no user behind its token: nobody to sign in.
    const user = fieldsOf(fieldsOf(fieldsOf(me["bot"])["owner"])["user"]);
    const subject = requiredSubject("notion", stringOf(user["id"]), "answered a bot that no user owns");
    const name = stringOf(user["name"]);
    const avatar = stringOf(user["avatar_url"]);
    return profileOf(
      subject,
      api,
      { name, full_name: name, avatar_url: avatar, picture: avatar },
      onlyAddress(stringOf(fieldsOf(user["person"])["email"]), true),
    );
  },
};
