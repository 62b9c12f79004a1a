import { fieldsOf, getJson, idOf, stringOf } from "../http/provider-http.ts";
import { listedAddresses, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** github.com's API, or a GitHub Enterprise Server's under EXTERNAL_GITHUB_URL (`<URL>/api/v3`). */
function apiUrl(context: ProviderContext): string {
  const url = context.settings.url;
  return url === undefined || url.endsWith("api.github.com") ? "https://api.github.com" : `${url}/api/v3`;
}

/**
 * GitHub: the profile from /user, the addresses from /user/emails (the `user:email` scope), each with its own
 * verified and primary flags; /user's `email` is not used, as GoTrue does not.
 */
export const github: OAuth2Definition<"github"> = {
  name: "github",
  title: "GitHub",
  defaultScopes: ["user:email"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const base = baseUrl(context, "https://github.com");
    return { authorization: `${base}/login/oauth/authorize`, token: `${base}/login/oauth/access_token` };
  },
  async profile(context, answer) {
    const api = apiUrl(context);
    const headers = { Authorization: `Bearer ${answer.accessToken}` };
    const user = fieldsOf(await getJson(context.fetch, "github", { url: `${api}/user`, headers }));
    const emails = await getJson(context.fetch, "github", { url: `${api}/user/emails`, headers });
    const subject = requiredSubject("github", idOf(user["id"]));
    const name = stringOf(user["name"]);
    const login = stringOf(user["login"]);
    return profileOf(
      subject,
      api,
      {
        name,
        full_name: name,
        avatar_url: stringOf(user["avatar_url"]),
        preferred_username: login,
        user_name: login,
      },
      listedAddresses(emails, { verified: "verified", primary: "primary" }),
    );
  },
};
