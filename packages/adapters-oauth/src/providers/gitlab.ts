import type { ProviderEmail } from "@latchkey/domain";
import { fieldsOf, getJson, idOf, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/**
 * GitLab, gitlab.com or a self-managed instance at EXTERNAL_GITLAB_URL: one host for OAuth and the v4 API, which is
 * also the issuer. The /user address is the primary one, verified once confirmed; the further addresses of
 * /user/emails are reported unverified and not primary, as GoTrue reports them.
 */
export const gitlab: OAuth2Definition<"gitlab"> = {
  name: "gitlab",
  title: "GitLab",
  defaultScopes: ["read_user"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const host = baseUrl(context, "https://gitlab.com");
    return { authorization: `${host}/oauth/authorize`, token: `${host}/oauth/token` };
  },
  async profile(context, answer) {
    const host = baseUrl(context, "https://gitlab.com");
    const headers = { Authorization: `Bearer ${answer.accessToken}` };
    const user = fieldsOf(await getJson(context.fetch, "gitlab", { url: `${host}/api/v4/user`, headers }));
    const others = await getJson(context.fetch, "gitlab", { url: `${host}/api/v4/user/emails`, headers });
    const subject = requiredSubject("gitlab", idOf(user["id"]));
    const primary = stringOf(user["email"]);
    const emails = (Array.isArray(others) ? others : []).flatMap((entry): ProviderEmail[] => {
      const address = stringOf(fieldsOf(entry)["email"]);
      // The primary address, should a GitLab list it here too, is reported once, with its own flags below.
      if (address === undefined || address.toLowerCase() === primary?.toLowerCase()) return [];
      return [{ address, verified: false, primary: false }];
    });
    emails.push(...onlyAddress(primary, stringOf(user["confirmed_at"]) !== undefined));
    const name = stringOf(user["name"]);
    const avatar = stringOf(user["avatar_url"]);
    return profileOf(subject, host, { name, full_name: name, avatar_url: avatar, picture: avatar }, emails);
  },
};
