import { claimsOf, fieldsOf, getJson, idOf, stringOf } from "../http/provider-http.ts";
import { customClaims, onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/**
 * Twitch: the user is the first of Helix's /users, which wants the app's `Client-Id` beside the token; the client
 * secret goes in the form body. id.twitch.tv and api.twitch.tv both become EXTERNAL_TWITCH_URL when it is set.
 * `name` is the login and `nickname` the display name, as GoTrue maps them; the address counts as verified.
 */
export const twitch: OAuth2Definition<"twitch"> = {
  name: "twitch",
  title: "Twitch",
  defaultScopes: ["user:read:email"],
  takesScopes: true,
  clientAuth: "post",
  endpoints(context) {
    const base = baseUrl(context, "https://id.twitch.tv");
    return { authorization: `${base}/oauth2/authorize`, token: `${base}/oauth2/token` };
  },
  async profile(context, answer) {
    const api = baseUrl(context, "https://api.twitch.tv");
    const body = await getJson(context.fetch, "twitch", {
      url: `${api}/helix/users`,
      headers: {
        "Client-Id": context.settings.clientIds[0] ?? "",
        Authorization: `Bearer ${answer.accessToken}`,
      },
    });
    const data = fieldsOf(body)["data"];
    const user = fieldsOf(Array.isArray(data) ? data[0] : undefined);
    const subject = requiredSubject("twitch", idOf(user["id"]), "answered no user");
    const login = stringOf(user["login"]);
    const displayName = stringOf(user["display_name"]);
    const image = stringOf(user["profile_image_url"]);
    const custom = claimsOf({
      broadcaster_type: stringOf(user["broadcaster_type"]),
      description: stringOf(user["description"]),
      type: stringOf(user["type"]),
      offline_image_url: stringOf(user["offline_image_url"]),
      view_count: typeof user["view_count"] === "number" ? user["view_count"] : undefined,
    });
    return profileOf(
      subject,
      api,
      {
        name: login,
        full_name: login,
        avatar_url: image,
        picture: image,
        nickname: displayName,
        slug: displayName,
        custom_claims: customClaims(custom),
      },
      onlyAddress(stringOf(user["email"]), true),
    );
  },
};
