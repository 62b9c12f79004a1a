import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { hmacSha1Signature, signatureBaseString } from "../src/oauth1/signature.ts";
import { twitter } from "../src/providers/twitter.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type Reply,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const REQUEST_TOKEN = {
  key: "Z6eEdO8MOmk394WozF5oKyuAv855l4Mlqo7hhlSLik",
  secret: "Kd75W4OQfb2oJTV0vzGzeXftVAwgMnEK9MumzYcM",
};
const VERIFIER = "pDNg57prOHapMbhv25RNf75lVRd6JDsni1AJJIDYoTY";
const ACCESS_TOKEN = {
  key: "6253282-eWudHldSbIaelX7swmsiHImEL4KinwaGloHANdrY",
  secret: "2EEfA6BG3ly3sR3RjE0IBSnlQu4ZrUzPiYKmrkVU",
};
const PROFILE_QUERY = "include_entities=false&skip_status=true&include_email=true";
/** verify_credentials as documented, with an id beyond 2^53, written as JSON text so that its digits stay exact. */
const USER_JSON =
  '{"id":1234567890123456789,"id_str":"1234567890123456789","name":"Twitter Dev","screen_name":"TwitterDev",' +
  '"location":"Internet","protected":false,"verified":true,' +
  '"profile_image_url":"http://pbs.twimg.com/profile_images/880136122604507136/xHrnqf1T_normal.jpg",' +
  '"profile_image_url_https":"https://pbs.twimg.com/profile_images/880136122604507136/xHrnqf1T_normal.jpg",' +
  '"email":"dev@example.com"}';
/** Twitter's answer to a request it cannot authenticate. */
const NOT_AUTHENTICATED: Reply = {
  status: 401,
  json: { errors: [{ code: 32, message: "Could not authenticate you." }] },
};

/** The protocol parameters of an `Authorization: OAuth ...` header, decoded. */
function protocolOf(request: StandInRequest): Record<string, string> {
  const header = request.headers.authorization ?? "";
  if (!header.startsWith("OAuth ")) return {};
  return Object.fromEntries(
    [...header.slice(6).matchAll(/([^\s=,]+)="([^"]*)"/g)].map(([, name, value]) => [
      decodeURIComponent(name!),
      decodeURIComponent(value!),
    ]),
  );
}

/**
 * The request's signed protocol parameters when Twitter would accept them: the signature recomputed here from
 * the request as received (method, URL with its query, form body, protocol parameters) and the secrets the
 * provider knows; the client, the token, the method and a current timestamp checked. Else undefined.
 */
function verified(
  request: StandInRequest,
  consumerSecret: string,
  token?: { key: string; secret: string },
): Record<string, string> | undefined {
  const { oauth_signature: signature, realm: _realm, ...signed } = protocolOf(request);
  const query = request.query.toString();
  const url = `http://${request.headers.host}${request.path}${query === "" ? "" : `?${query}`}`;
  const baseString = signatureBaseString(request.method, url, [
    ...Object.entries(signed),
    ...Object.entries(request.form),
  ]);
  const expected = hmacSha1Signature(baseString, consumerSecret, token?.secret ?? "");
  const ok =
    signature === expected &&
    signed["oauth_consumer_key"] === CLIENT_ID &&
    signed["oauth_signature_method"] === "HMAC-SHA1" &&
    signed["oauth_token"] === token?.key &&
    Math.abs(Number(signed["oauth_timestamp"]) - Date.now() / 1000) < 300 &&
    (signed["oauth_nonce"] ?? "") !== "";
  return ok ? signed : undefined;
}

/** Twitter answers its OAuth endpoints form-encoded, under a text/html content type. */
function formAnswer(fields: Record<string, string>): Reply {
  return { raw: new URLSearchParams(fields).toString(), headers: { "Content-Type": "text/html; charset=utf-8" } };
}

/** api.twitter.com's three endpoints, knowing `consumerSecret` as the app's secret. */
function standInTwitter(
  overrides: { consumerSecret?: string; confirmed?: string; user?: string; access?: Record<string, string> } = {},
): Promise<StandIn> {
  const consumerSecret = overrides.consumerSecret ?? CLIENT_SECRET;
  return startStandIn({
    "POST /oauth/request_token": (request) => {
      const signed = verified(request, consumerSecret);
      const callback = signed?.["oauth_callback"];
      if (!callback || !new URL(callback).searchParams.get("state")) return NOT_AUTHENTICATED;
      return formAnswer({
        oauth_token: REQUEST_TOKEN.key,
        oauth_token_secret: REQUEST_TOKEN.secret,
        oauth_callback_confirmed: overrides.confirmed ?? "true",
      });
    },
    "POST /oauth/access_token": (request) => {
      const signed = verified(request, consumerSecret, REQUEST_TOKEN);
      if (signed?.["oauth_verifier"] !== VERIFIER) return { status: 401, raw: "Invalid request token." };
      return formAnswer(
        overrides.access ?? {
          oauth_token: ACCESS_TOKEN.key,
          oauth_token_secret: ACCESS_TOKEN.secret,
          user_id: "1234567890123456789",
          screen_name: "TwitterDev",
        },
      );
    },
    "GET /1.1/account/verify_credentials.json": (request) => {
      if (!verified(request, consumerSecret, ACCESS_TOKEN) || request.query.toString() !== PROFILE_QUERY) {
        return NOT_AUTHENTICATED;
      }
      return { raw: overrides.user ?? USER_JSON, headers: { "Content-Type": "application/json; charset=utf-8" } };
    },
  });
}

const CALLBACK = { params: { oauth_token: REQUEST_TOKEN.key, oauth_verifier: VERIFIER, state: "flow-id" } };

describe("twitter", () => {
  it("asks for a request token with the state in the signed callback, then sends the browser to authenticate", async () => {
    const standIn = await standInTwitter();
    const provider = providerAt(twitter, standIn.url);
    expect(provider).toMatchObject({ name: "twitter", takesScopes: false, emailOptional: false });
    expect(provider.idTokens).toBeUndefined();
    const start = await provider.authorize({
      state: "flow-id",
      scopes: ["ignored"],
      params: [["force_login", "true"]],
    });
    expect(start).toEqual({
      url: `${standIn.url}/oauth/authenticate?force_login=true&oauth_token=${REQUEST_TOKEN.key}`,
      secret: REQUEST_TOKEN.secret,
    });
    const [request] = standIn.requestsTo("POST /oauth/request_token");
    expect(request?.body).toBe("");
    const protocol = protocolOf(request!);
    expect(Object.keys(protocol)).toEqual([
      "oauth_callback",
      "oauth_consumer_key",
      "oauth_nonce",
      "oauth_signature",
      "oauth_signature_method",
      "oauth_timestamp",
      "oauth_version",
    ]);
    expect(protocol).toMatchObject({
      oauth_callback: `${REDIRECT_URI}?state=flow-id`,
      oauth_consumer_key: CLIENT_ID,
      oauth_signature_method: "HMAC-SHA1",
      oauth_version: "1.0",
    });
    expect(protocol["oauth_timestamp"]).toMatch(/^\d{10}$/);
    expect(request?.headers.authorization).toContain(
      `oauth_callback="${encodeURIComponent(`${REDIRECT_URI}?state=flow-id`)}"`,
    );
  });

  it("adds the state to a redirect URI that already has a query", async () => {
    const standIn = await standInTwitter();
    await providerAt(twitter, standIn.url, { redirectUri: `${REDIRECT_URI}?tenant=a` }).authorize({
      state: "flow-id",
      scopes: [],
      params: [],
    });
    const [request] = standIn.requestsTo("POST /oauth/request_token");
    expect(protocolOf(request!)["oauth_callback"]).toBe(`${REDIRECT_URI}?tenant=a&state=flow-id`);
  });

  it("fails at authorize when Twitter cannot authenticate the app, or does not confirm the callback", async () => {
    const otherSecret = await standInTwitter({ consumerSecret: "another-secret" });
    const failure = await providerAt(twitter, otherSecret.url)
      .authorize({ state: "flow-id", scopes: [], params: [] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ provider: "twitter", stage: "authorize", message: "twitter: answered 401" });
    expect(JSON.stringify((failure as Error).cause)).toContain("Could not authenticate you.");

    const unconfirmed = await standInTwitter({ confirmed: "false" });
    await expect(
      providerAt(twitter, unconfirmed.url).authorize({ state: "flow-id", scopes: [], params: [] }),
    ).rejects.toMatchObject({ stage: "authorize", message: "twitter: did not confirm the callback" });

    const hanging = await startStandIn({ "POST /oauth/request_token": () => "hang" });
    await expect(
      providerAt(twitter, hanging.url, {}, 200).authorize({ state: "flow-id", scopes: [], params: [] }),
    ).rejects.toMatchObject({ stage: "authorize", message: "twitter: could not be reached" });
  });

  it("trades the verifier with the kept request-token secret, then reads verify_credentials signed with its query", async () => {
    const standIn = await standInTwitter();
    const signIn = await providerAt(twitter, standIn.url).complete({ ...CALLBACK, secret: REQUEST_TOKEN.secret });
    const iss = `${standIn.url}/1.1/account/verify_credentials.json?${PROFILE_QUERY}`;
    expect(signIn).toEqual({
      tokens: { accessToken: ACCESS_TOKEN.key, refreshToken: null },
      profile: {
        subject: "1234567890123456789",
        claims: {
          iss,
          sub: "1234567890123456789",
          provider_id: "1234567890123456789",
          name: "Twitter Dev",
          full_name: "Twitter Dev",
          avatar_url: "https://pbs.twimg.com/profile_images/880136122604507136/xHrnqf1T_normal.jpg",
          picture: "https://pbs.twimg.com/profile_images/880136122604507136/xHrnqf1T_normal.jpg",
          preferred_username: "TwitterDev",
          user_name: "TwitterDev",
        },
        emails: [{ address: "dev@example.com", verified: true, primary: true }],
      },
    });
    const [exchange] = standIn.requestsTo("POST /oauth/access_token");
    expect(protocolOf(exchange!)).toMatchObject({ oauth_token: REQUEST_TOKEN.key, oauth_verifier: VERIFIER });
    const [profile] = standIn.requestsTo("GET /1.1/account/verify_credentials.json");
    const profileProtocol = protocolOf(profile!);
    expect(profileProtocol["oauth_token"]).toBe(ACCESS_TOKEN.key);
    // The query is signed, not repeated in the header.
    expect(profileProtocol["include_email"]).toBeUndefined();
    const nonces = standIn.requests.map((request) => protocolOf(request)["oauth_nonce"]);
    expect(new Set(nonces).size).toBe(2);
  });

  it("reports no address when Twitter gives none", async () => {
    const standIn = await standInTwitter({ user: '{"id":42,"id_str":"42","name":"","screen_name":"quiet"}' });
    const signIn = await providerAt(twitter, standIn.url).complete({ ...CALLBACK, secret: REQUEST_TOKEN.secret });
    expect(signIn.profile).toEqual({
      subject: "42",
      claims: {
        iss: `${standIn.url}/1.1/account/verify_credentials.json?${PROFILE_QUERY}`,
        sub: "42",
        provider_id: "42",
        preferred_username: "quiet",
        user_name: "quiet",
      },
      emails: [],
    });
  });

  it("fails at the exchange without the kept secret, with a wrong one, or with a wrong verifier", async () => {
    const standIn = await standInTwitter();
    const provider = providerAt(twitter, standIn.url);
    await expect(provider.complete({ ...CALLBACK, secret: null })).rejects.toMatchObject({
      stage: "exchange",
      message: "twitter: no request-token secret was kept",
    });
    await expect(
      provider.complete({ params: { denied: REQUEST_TOKEN.key, state: "flow-id" }, secret: REQUEST_TOKEN.secret }),
    ).rejects.toMatchObject({ stage: "exchange", message: "twitter: sent no token and verifier" });
    expect(standIn.requests).toEqual([]);

    // GoTrue signs the exchange with an empty request-token secret; Twitter's signature check refuses that.
    const failure = await provider.complete({ ...CALLBACK, secret: "not-the-secret" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ stage: "exchange", message: "twitter: answered 401" });
    expect((failure as Error).message).not.toContain("Invalid");

    await expect(
      provider.complete({ params: { ...CALLBACK.params, oauth_verifier: "guessed" }, secret: REQUEST_TOKEN.secret }),
    ).rejects.toMatchObject({ stage: "exchange", message: "twitter: answered 401" });
  });

  it("fails at the exchange on an answer without the access token's secret", async () => {
    const standIn = await standInTwitter({ access: { oauth_token: ACCESS_TOKEN.key, user_id: "1" } });
    await expect(
      providerAt(twitter, standIn.url).complete({ ...CALLBACK, secret: REQUEST_TOKEN.secret }),
    ).rejects.toMatchObject({ stage: "exchange", message: "twitter: answered without an access token" });
    expect(standIn.requestsTo("GET /1.1/account/verify_credentials.json")).toEqual([]);
  });

  it("fails at the profile when verify_credentials refuses, answers no JSON, or a user without id_str", async () => {
    const refusing = await standInTwitter({
      access: { oauth_token: "revoked", oauth_token_secret: "revoked-secret" },
    });
    await expect(
      providerAt(twitter, refusing.url).complete({ ...CALLBACK, secret: REQUEST_TOKEN.secret }),
    ).rejects.toMatchObject({ stage: "profile", message: "twitter: answered 401" });

    const garbled = await standInTwitter({ user: "<html>" });
    await expect(
      providerAt(twitter, garbled.url).complete({ ...CALLBACK, secret: REQUEST_TOKEN.secret }),
    ).rejects.toMatchObject({ stage: "profile", message: "twitter: answered what is not JSON" });

    const anonymous = await standInTwitter({ user: '{"id":42,"screen_name":"no-id-str"}' });
    await expect(
      providerAt(twitter, anonymous.url).complete({ ...CALLBACK, secret: REQUEST_TOKEN.secret }),
    ).rejects.toMatchObject({ stage: "profile", message: "twitter: answered a user without an id" });
  });
});
