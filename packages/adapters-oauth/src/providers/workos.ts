import { claimsOf, fieldsOf, idOf, providerFailure, stringOf } from "../http/provider-http.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/**
 * WorkOS SSO: no scopes and no profile request, as the token answer carries the `profile` itself. The client's
 * `workos_provider` goes on as WorkOS's `provider` (ours is taken by the server), while `connection`,
 * `organization`, `login_hint` and `domain_hint` pass unchanged. The address counts as verified.
 */
export const workos: OAuth2Definition = {
  name: "workos",
  defaultScopes: [],
  takesScopes: false,
  clientAuth: "post",
  renameParams: { workos_provider: "provider" },
  endpoints(context) {
    const base = baseUrl(context, "https://api.workos.com");
    return { authorization: `${base}/sso/authorize`, token: `${base}/sso/token` };
  },
  async profile(context, answer) {
    const profile = fieldsOf(answer.fields["profile"]);
    const subject = idOf(profile["id"]);
    // GoTrue would go on with empty data here; a sign-in without anyone is refused instead.
    if (subject === undefined) throw providerFailure("workos", "profile", "answered the token without a profile");
    const name = [stringOf(profile["first_name"]), stringOf(profile["last_name"])]
      .filter((part) => part !== undefined)
      .join(" ");
    const custom = claimsOf({
      connection_id: stringOf(profile["connection_id"]),
      organization_id: stringOf(profile["organization_id"]),
    });
    const email = stringOf(profile["email"]);
    return {
      subject,
      claims: claimsOf({
        iss: baseUrl(context, "https://api.workos.com"),
        sub: subject,
        provider_id: subject,
        name,
        full_name: name,
        custom_claims: Object.keys(custom).length > 0 ? custom : undefined,
      }),
      emails: email === undefined ? [] : [{ address: email, verified: true, primary: true }],
    };
  },
};
