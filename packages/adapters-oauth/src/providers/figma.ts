import { fieldsOf, getJson, idOf, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** api.figma.com, which serves the token endpoint and /v1/me; EXTERNAL_FIGMA_URL replaces it as it does www. */
function apiUrl(context: ProviderContext): string {
  return baseUrl(context, "https://api.figma.com");
}

/**
 * Figma: the user from /v1/me (the granular `current_user:read` scope). Its name is the `handle`, its picture only
 * `avatar_url`, and its one address counts as verified, as GoTrue has it.
 */
export const figma: OAuth2Definition<"figma"> = {
  name: "figma",
  title: "Figma",
  defaultScopes: ["current_user:read"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    return {
      authorization: `${baseUrl(context, "https://www.figma.com")}/oauth`,
      token: `${apiUrl(context)}/v1/oauth/token`,
    };
  },
  async profile(context, answer) {
    const api = apiUrl(context);
    const headers = { Authorization: `Bearer ${answer.accessToken}` };
    const user = fieldsOf(await getJson(context.fetch, "figma", { url: `${api}/v1/me`, headers }));
    const subject = requiredSubject("figma", idOf(user["id"]));
    const handle = stringOf(user["handle"]);
    return profileOf(
      subject,
      api,
      { name: handle, full_name: handle, avatar_url: stringOf(user["img_url"]) },
      onlyAddress(stringOf(user["email"]), true),
    );
  },
};
