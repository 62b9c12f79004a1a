import type { ProviderProfile } from "@latchkey/domain";
import { fieldsOf, getJson, idOf, providerFailure, stringOf } from "../http/provider-http.ts";
import { idTokenVerifier } from "../oidc/id-token-verifier.ts";
import { onlyAddress, profileOf } from "../profile.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";

const GOOGLE_ISSUER = "https://accounts.google.com";
/** Google documents both spellings of its issuer in id_tokens; go-oidc, which GoTrue uses, accepts both. */
const GOOGLE_ISSUER_WITHOUT_SCHEME = "accounts.google.com";
const GOOGLE_USERINFO = "https://www.googleapis.com/userinfo/v2/me";

/** accounts.google.com, or EXTERNAL_GOOGLE_URL: the issuer whose discovery gives the endpoints and keys. */
function issuerOf(context: ProviderContext): string {
  return context.settings.url ?? GOOGLE_ISSUER;
}

function acceptedIssuers(issuer: string): string[] {
  return issuer === GOOGLE_ISSUER ? [issuer, GOOGLE_ISSUER_WITHOUT_SCHEME] : [issuer];
}

/**
 * Google's profile from an id_token or a userinfo answer, which name the same things differently: `sub` or `id`,
 * `email_verified` or `verified_email` (userinfo v2). `hd` is the Workspace domain, for apps that restrict to one.
 */
function googleProfile(iss: string, fields: Readonly<Record<string, unknown>>): ProviderProfile | undefined {
  const subject = stringOf(fields["sub"]) ?? idOf(fields["id"]);
  if (subject === undefined) return undefined;
  const name = stringOf(fields["name"]);
  const picture = stringOf(fields["picture"]);
  const hd = stringOf(fields["hd"]);
  return profileOf(
    subject,
    iss,
    { name, full_name: name, picture, avatar_url: picture, custom_claims: hd === undefined ? undefined : { hd } },
    onlyAddress(stringOf(fields["email"]), fields["email_verified"] === true || fields["verified_email"] === true),
  );
}

/**
 * Google: endpoints and keys from the issuer's discovery. The profile is the id_token of the token answer,
 * verified for this app (the first client id); without one, userinfo v2 (or, under EXTERNAL_GOOGLE_URL, the
 * discovered userinfo endpoint).
 */
export const google: OAuth2Definition<"google"> = {
  name: "google",
  title: "Google",
  defaultScopes: ["email", "profile"],
  takesScopes: true,
  clientAuth: "basic",
  async endpoints(context) {
    const { authorization, token } = await context.discovery.endpoints(issuerOf(context));
    return { authorization, token };
  },
  async profile(context, answer) {
    const discovered = await context.discovery.endpoints(issuerOf(context));
    if (answer.idToken !== undefined) {
      const claims = await context.idTokenKeys.verify({
        provider: "google",
        idToken: answer.idToken,
        jwksUri: discovered.jwks,
        issuer: acceptedIssuers(discovered.issuer),
        audiences: context.settings.clientIds.slice(0, 1),
        accessToken: answer.accessToken,
      });
      const profile = googleProfile(claims.iss ?? discovered.issuer, claims);
      if (profile === undefined) throw providerFailure("google", "profile", "answered an id_token without a subject");
      return profile;
    }
    const url = context.settings.url;
    const userinfo = url === undefined ? GOOGLE_USERINFO : (discovered.userinfo ?? `${url}/userinfo/v2/me`);
    const user = fieldsOf(
      await getJson(context.fetch, "google", {
        url: userinfo,
        headers: { Authorization: `Bearer ${answer.accessToken}` },
      }),
    );
    const profile = googleProfile(userinfo, user);
    if (profile === undefined) throw providerFailure("google", "profile", "answered a user without an id");
    return profile;
  },
  idTokens(context) {
    return idTokenVerifier(context, {
      async keys(own) {
        const issuer = issuerOf(own);
        const { jwks } = await own.discovery.endpoints(issuer);
        return { jwksUri: jwks, issuer: acceptedIssuers(issuer) };
      },
      profile(claims) {
        const profile = googleProfile(claims.iss ?? GOOGLE_ISSUER, claims);
        // The verifier has already refused a token without `sub`.
        if (profile === undefined) throw providerFailure("google", "id_token", "its id_token has no sub claim");
        return profile;
      },
    });
  },
};
