import { claimsOf, fieldsOf, idOf, stringOf } from "../http/provider-http.ts";
import { customClaims, fullName, onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/**
 * WorkOS SSO: no scopes and no profile request, as the token answer carries the `profile` itself. The client's
 * `workos_provider` goes on as WorkOS's `provider` (ours is taken by the server), while `connection`,
 * `organization`, `login_hint` and `domain_hint` pass unchanged. The address counts as verified.
 */
export const workos: OAuth2Definition<"workos"> = {
  name: "workos",
  title: "WorkOS",
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
    // GoTrue would go on with empty data here; a sign-in without anyone is refused instead.
    const subject = requiredSubject("workos", idOf(profile["id"]), "answered the token without a profile");
    const name = fullName(stringOf(profile["first_name"]), stringOf(profile["last_name"]));
    const custom = claimsOf({
      connection_id: stringOf(profile["connection_id"]),
      organization_id: stringOf(profile["organization_id"]),
    });
    return profileOf(
      subject,
      baseUrl(context, "https://api.workos.com"),
      { name, full_name: name, custom_claims: customClaims(custom) },
      onlyAddress(stringOf(profile["email"]), true),
    );
  },
};
