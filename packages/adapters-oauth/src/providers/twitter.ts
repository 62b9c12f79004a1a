import { randomBytes } from "node:crypto";
import type { OAuthProviderStage, ProviderProfile } from "@latchkey/domain";
import { fieldsOf, getJson, providerFailure, stringOf } from "../http/provider-http.ts";
import { authorizationHeader, type OAuth1Credentials, signRequest } from "../oauth1/signature.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OwnFlowDefinition, type ProviderContext, type ProviderFactory } from "../provider-definition.ts";

const NAME = "twitter";
const PROFILE_PATH = "/1.1/account/verify_credentials.json?include_entities=false&skip_status=true&include_email=true";

/**
 * Twitter's OAuth 1.0a: /authorize first asks for a request token (its callback carries our `state`, as Twitter
 * hands back only what that URL holds) and keeps the token's secret for the exchange; the callback's verifier is
 * traded for an access token; verify_credentials says who signed in. Every call is signed (oauth1/signature.ts).
 * Unlike GoTrue, the exchange is signed with the request token's secret, and a failed request-token call fails.
 * Scopes do not apply; the app's "request email" permission decides whether an address comes back.
 */
const oauth1Flow: ProviderFactory = (context) => {
  const { settings } = context;
  const base = baseUrl(context, "https://api.twitter.com");
  const consumer: OAuth1Credentials = { key: settings.clientIds[0] ?? "", secret: settings.secret };
  const call = (stage: OAuthProviderStage, url: string, token?: OAuth1Credentials, protocol = {}) =>
    signedPost(context, stage, url, { consumer, token, protocol });
  return {
    name: NAME,
    takesScopes: false,
    emailOptional: settings.emailOptional,
    async authorize(request) {
      const redirect = settings.redirectUri;
      const callback = `${redirect}${redirect.includes("?") ? "&" : "?"}state=${encodeURIComponent(request.state)}`;
      const answer = await call("authorize", `${base}/oauth/request_token`, undefined, { oauth_callback: callback });
      // Without the confirmation, the provider speaks OAuth 1.0 and would ignore the callback we sent (RFC 5849 §2.1).
      if (answer.fields["oauth_callback_confirmed"] !== "true") {
        throw providerFailure(NAME, "authorize", "did not confirm the callback", answer.details);
      }
      const token = stringOf(answer.fields["oauth_token"]);
      const secret = stringOf(answer.fields["oauth_token_secret"]);
      if (token === undefined || secret === undefined) {
        throw providerFailure(NAME, "authorize", "answered without a request token", answer.details);
      }
      const url = new URL(`${base}/oauth/authenticate`);
      // The client's further parameters (`force_login`, `screen_name`) are Twitter's own; the token comes last.
      for (const [name, value] of request.params) url.searchParams.set(name, value);
      url.searchParams.set("oauth_token", token);
      return { url: url.toString(), secret };
    },
    async complete(callback) {
      const token = callback.params["oauth_token"];
      const verifier = callback.params["oauth_verifier"];
      if (!token || !verifier) throw providerFailure(NAME, "exchange", "sent no token and verifier");
      if (!callback.secret) throw providerFailure(NAME, "exchange", "no request-token secret was kept");
      const answer = await call(
        "exchange",
        `${base}/oauth/access_token`,
        { key: token, secret: callback.secret },
        { oauth_verifier: verifier },
      );
      const accessToken = stringOf(answer.fields["oauth_token"]);
      const accessSecret = stringOf(answer.fields["oauth_token_secret"]);
      if (accessToken === undefined || accessSecret === undefined) {
        throw providerFailure(NAME, "exchange", "answered without an access token", answer.details);
      }
      const profile = await readProfile(context, `${base}${PROFILE_PATH}`, {
        consumer,
        token: { key: accessToken, secret: accessSecret },
      });
      // The access-token secret, which API calls on the person's behalf also need, has no place in the port yet.
      return { tokens: { accessToken, refreshToken: null }, profile };
    },
  };
};

/** Twitter's definition: a flow of its own, without the OAuth 2.0 table. */
export const twitter: OwnFlowDefinition<"twitter"> = { name: NAME, title: "Twitter (OAuth 1.0a)", flow: oauth1Flow };

interface Signer {
  readonly consumer: OAuth1Credentials;
  readonly token?: OAuth1Credentials | undefined;
  readonly protocol?: Readonly<Record<string, string>>;
}

/** The `Authorization` header of one request, with a fresh nonce and the current time. */
function signedHeader(method: string, url: string, signer: Signer): string {
  const nonce = randomBytes(16).toString("hex");
  const timestamp = Math.floor(Date.now() / 1000);
  return authorizationHeader(signRequest({ method, url, ...signer, nonce, timestamp }));
}

/** A signed POST without a body, whose answer is form-encoded (whatever its content type says). */
async function signedPost(
  context: ProviderContext,
  stage: OAuthProviderStage,
  url: string,
  signer: Signer,
): Promise<{ fields: Record<string, string>; details: { status: number; body: string } }> {
  let response: Response;
  try {
    response = await context.fetch(url, {
      method: "POST",
      headers: { Authorization: signedHeader("POST", url, signer) },
    });
  } catch (error) {
    throw providerFailure(NAME, stage, "could not be reached", error);
  }
  const body = await response.text();
  const details = { status: response.status, body };
  if (response.status < 200 || response.status > 299) {
    throw providerFailure(NAME, stage, `answered ${response.status}`, details);
  }
  return { fields: Object.fromEntries(new URLSearchParams(body)), details };
}

/** verify_credentials, signed with the access token, its query included in the signature. */
async function readProfile(context: ProviderContext, url: string, signer: Signer): Promise<ProviderProfile> {
  const headers = { Authorization: signedHeader("GET", url, signer) };
  const user = fieldsOf(await getJson(context.fetch, NAME, { url: url, headers }));
  // `id` exceeds 2^53 and loses digits as a JSON number; `id_str` is exact.
  const subject = requiredSubject(NAME, stringOf(user["id_str"]));
  const name = stringOf(user["name"]);
  const image = stringOf(user["profile_image_url_https"]);
  const screenName = stringOf(user["screen_name"]);
  return profileOf(
    subject,
    url,
    { name, full_name: name, avatar_url: image, picture: image, preferred_username: screenName, user_name: screenName },
    // Twitter returns only an address the person has verified.
    onlyAddress(stringOf(user["email"]), true),
  );
}
