import { fieldsOf, getJson, providerFailure, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

const USER_ID = "https://slack.com/user_id";
const TEAM_ID = "https://slack.com/team_id";

/**
 * Slack ("Sign in with Slack", GoTrue's slack_oidc): the profile from openid.connect.userInfo, the person's id in
 * Slack's namespaced claim rather than `sub`, and the workspace in `custom_claims`. Slack reports errors as
 * 200 `{"ok": false}`, at the token endpoint (code-flow.ts) as at userinfo (here). The id_token is not read.
 */
export const slack: OAuth2Definition<"slack"> = {
  name: "slack",
  title: "Slack",
  // GoTrue's name of Slack's OIDC flow, the only one Latchkey runs under either name.
  alias: "slack_oidc",
  defaultScopes: ["profile", "email", "openid"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const base = baseUrl(context, "https://slack.com");
    return { authorization: `${base}/openid/connect/authorize`, token: `${base}/api/openid.connect.token` };
  },
  async profile(context, answer) {
    const api = `${baseUrl(context, "https://slack.com")}/api`;
    const user = fieldsOf(
      await getJson(context.fetch, "slack", {
        url: `${api}/openid.connect.userInfo`,
        headers: { Authorization: `Bearer ${answer.accessToken}` },
      }),
    );
    if (user["ok"] === false) throw providerFailure("slack", "profile", "refused the token", user);
    const subject = requiredSubject("slack", stringOf(user[USER_ID]));
    const name = stringOf(user["name"]);
    const picture = stringOf(user["picture"]);
    const teamId = stringOf(user[TEAM_ID]);
    return profileOf(
      subject,
      api,
      {
        name,
        full_name: name,
        picture,
        avatar_url: picture,
        custom_claims: teamId === undefined ? undefined : { [TEAM_ID]: teamId },
      },
      onlyAddress(stringOf(user["email"]), user["email_verified"] === true),
    );
  },
};
