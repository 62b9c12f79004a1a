import type { ProviderEmail } from "@latchkey/domain";
import { claimsOf, fieldsOf, getJson, idOf, providerFailure, stringOf } from "../http/provider-http.ts";
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
export const github: OAuth2Definition = {
  name: "github",
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
    const user = fieldsOf(await getJson(context.fetch, "github", `${api}/user`, headers));
    const emails = await getJson(context.fetch, "github", `${api}/user/emails`, headers);
    const subject = idOf(user["id"]);
    if (subject === undefined) throw providerFailure("github", "profile", "answered a user without an id");
    return {
      subject,
      claims: claimsOf({
        iss: api,
        sub: subject,
        provider_id: subject,
        name: stringOf(user["name"]),
        full_name: stringOf(user["name"]),
        avatar_url: stringOf(user["avatar_url"]),
        preferred_username: stringOf(user["login"]),
        user_name: stringOf(user["login"]),
      }),
      emails: (Array.isArray(emails) ? emails : []).flatMap((entry): ProviderEmail[] => {
        const fields = fieldsOf(entry);
        const address = stringOf(fields["email"]);
        return address === undefined
          ? []
          : [{ address, verified: fields["verified"] === true, primary: fields["primary"] === true }];
      }),
    };
  },
};
