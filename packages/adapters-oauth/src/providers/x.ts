import { fieldsOf, getJson, idOf, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/** The fields of /2/users/me GoTrue asks for; `confirmed_email` needs the `users.email` scope. */
const USER_FIELDS = "id,name,username,confirmed_email,profile_image_url,url,created_at";

/**
 * X (Twitter's OAuth 2.0): PKCE with a verifier this server makes and keeps with the flow, HTTP Basic at the
 * token endpoint, and `offline.access` so that a refresh token comes back. x.com and api.x.com both become
 * EXTERNAL_X_URL when it is set; `profile` stays the public https://x.com/<username>. `confirmed_email` counts
 * as verified.
 */
export const x: OAuth2Definition<"x"> = {
  name: "x",
  title: "X (Twitter's OAuth 2.0)",
  defaultScopes: ["users.email", "tweet.read", "users.read", "offline.access"],
  takesScopes: true,
  clientAuth: "basic",
  pkce: true,
  endpoints(context) {
    return {
      authorization: `${baseUrl(context, "https://x.com")}/i/oauth2/authorize`,
      token: `${baseUrl(context, "https://api.x.com")}/2/oauth2/token`,
    };
  },
  async profile(context, answer) {
    const api = baseUrl(context, "https://api.x.com");
    const body = await getJson(context.fetch, "x", {
      url: `${api}/2/users/me?user.fields=${USER_FIELDS}`,
      headers: { Authorization: `Bearer ${answer.accessToken}` },
    });
    const user = fieldsOf(fieldsOf(body)["data"]);
    const subject = requiredSubject("x", idOf(user["id"]), "answered no user");
    const name = stringOf(user["name"]);
    const username = stringOf(user["username"]);
    const image = stringOf(user["profile_image_url"]);
    const createdAt = stringOf(user["created_at"]);
    return profileOf(
      subject,
      api,
      {
        name,
        full_name: name,
        avatar_url: image,
        picture: image,
        preferred_username: username,
        user_name: username,
        profile: username === undefined ? undefined : `https://x.com/${username}`,
        website: stringOf(user["url"]),
        custom_claims: createdAt === undefined ? undefined : { created_at: createdAt },
      },
      onlyAddress(stringOf(user["confirmed_email"]), true),
    );
  },
};
