import { fieldsOf, getJson, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/** The GraphQL query Snap's Login Kit reads the user with, passed in the URL. */
const ME_QUERY = "{me { externalId displayName bitmoji { avatar id } email } }";

/**
 * Snapchat: the user from Login Kit's GraphQL `/v1/me` on kit.snapchat.com (EXTERNAL_SNAPCHAT_URL replaces that host
 * too). The default scopes give no email, so sign-ins usually need EMAIL_OPTIONAL; an address, when an email scope
 * brings one, counts as verified. The issuer is GoTrue's constant, the token URL, whatever the override.
 */
export const snapchat: OAuth2Definition<"snapchat"> = {
  name: "snapchat",
  title: "Snapchat",
  defaultScopes: [
    "https://auth.snapchat.com/oauth2/api/user.external_id",
    "https://auth.snapchat.com/oauth2/api/user.display_name",
    "https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar",
  ],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const base = baseUrl(context, "https://accounts.snapchat.com");
    return { authorization: `${base}/accounts/oauth2/auth`, token: `${base}/accounts/oauth2/token` };
  },
  async profile(context, answer) {
    const api = baseUrl(context, "https://kit.snapchat.com");
    const url = `${api}/v1/me?query=${encodeURIComponent(ME_QUERY)}`;
    const body = await getJson(context.fetch, "snapchat", {
      url,
      headers: { Authorization: `Bearer ${answer.accessToken}` },
    });
    const me = fieldsOf(fieldsOf(fieldsOf(body)["data"])["me"]);
    const subject = requiredSubject("snapchat", stringOf(me["externalId"]));
    const displayName = stringOf(me["displayName"]);
    const avatar = stringOf(fieldsOf(me["bitmoji"])["avatar"]);
    return profileOf(
      subject,
      "https://accounts.snapchat.com/accounts/oauth2/token",
      { name: displayName, full_name: displayName, avatar_url: avatar, picture: avatar, slug: displayName },
      onlyAddress(stringOf(me["email"]), true),
    );
  },
};
