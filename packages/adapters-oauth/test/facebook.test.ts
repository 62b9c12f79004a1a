import { createHmac } from "node:crypto";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { facebook } from "../src/providers/facebook.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const ACCESS_TOKEN = "EAAGm0PX4ZCpsBAfacebook";
const FIELDS = "email,first_name,last_name,name,picture";
const PICTURE = "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10158&height=50&width=50";
const ME = {
  id: "10158012345678901",
  email: "zuck@example.com",
  first_name: "Mark",
  last_name: "Zuckerberg",
  name: "Mark E. Zuckerberg",
  picture: { data: { height: 50, is_silhouette: false, url: PICTURE, width: 50 } },
};

/** The app secret proof Graph requires: HMAC-SHA256 of the access token, keyed with the app secret, hex. */
function proofOf(accessToken: string): string {
  return createHmac("sha256", CLIENT_SECRET).update(accessToken).digest("hex");
}

/**
 * www.facebook.com and graph.facebook.com on one stand-in (EXTERNAL_FACEBOOK_URL replaces both hosts): the token
 * endpoint takes only the secret in the form; /me wants the Bearer token and its appsecret_proof.
 */
function standInFacebook(me: object = ME): Promise<StandIn> {
  return startStandIn({
    "POST /oauth/access_token": (request) => {
      if (
        request.headers.authorization !== undefined ||
        request.form["client_id"] !== CLIENT_ID ||
        request.form["client_secret"] !== CLIENT_SECRET
      ) {
        return {
          status: 401,
          json: { error: { message: "Error validating client secret.", type: "OAuthException", code: 1 } },
        };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return {
          status: 400,
          json: { error: { message: "This authorization code has expired.", type: "OAuthException", code: 100 } },
        };
      }
      return { json: { access_token: ACCESS_TOKEN, token_type: "bearer", expires_in: 5183944 } };
    },
    "GET /me": (request: StandInRequest) => {
      const token = request.headers.authorization?.replace(/^Bearer /, "") ?? "";
      if (token !== ACCESS_TOKEN) {
        return { status: 401, json: { error: { message: "Invalid OAuth access token.", code: 190 } } };
      }
      if (request.query.get("appsecret_proof") !== proofOf(token) || request.query.get("fields") !== FIELDS) {
        return {
          status: 400,
          json: { error: { message: "Invalid appsecret_proof provided in the API argument", code: 100 } },
        };
      }
      return { json: me };
    },
  });
}

describe("facebook", () => {
  it("reports no email when the person declined it, and leaves out a missing name part", async () => {
    const standIn = await standInFacebook({ id: "42", first_name: "Cher", name: "Cher" });
    const { profile } = await providerAt(facebook, standIn.url).complete({
      params: { code: "the-code" },
      secret: null,
    });
    expect(profile).toEqual({
      subject: "42",
      claims: {
        iss: `${standIn.url}/me?fields=${FIELDS}`,
        sub: "42",
        provider_id: "42",
        name: "Cher",
        full_name: "Cher",
        nickname: "Cher",
        slug: "Cher",
      },
      emails: [],
    });
  });

  it("fails at the exchange when Facebook refuses the app's secret, and at the profile on a user without an id", async () => {
    const standIn = await standInFacebook();
    // Another secret than the app's: Facebook itself refuses it at the token endpoint.
    await expect(
      providerAt(facebook, standIn.url, { secret: "another-secret" }).complete({
        params: { code: "the-code" },
        secret: null,
      }),
    ).rejects.toMatchObject({ stage: "exchange", message: "facebook: answered 401" });

    const noId = await standInFacebook({ name: "Nobody" });
    await expect(
      providerAt(facebook, noId.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "profile", message: "facebook: answered a user without an id" });
  });

  it("fails at the profile when /me refuses a proof made with another secret", async () => {
    const standIn = await startStandIn({
      "POST /oauth/access_token": () => ({ json: { access_token: ACCESS_TOKEN, token_type: "bearer" } }),
      "GET /me": (request) =>
        request.query.get("appsecret_proof") === proofOf(ACCESS_TOKEN)
          ? { json: ME }
          : { status: 400, json: { error: { message: "Invalid appsecret_proof", code: 100 } } },
    });
    await expect(
      providerAt(facebook, standIn.url, { secret: "another-secret" }).complete({
        params: { code: "the-code" },
        secret: null,
      }),
    ).rejects.toMatchObject({ stage: "profile", message: "facebook: answered 400" });
  });

  describe("Limited Login tokens", () => {
    const signing = generateKeyPair("RS256");

    async function limitedLogin(claims: JWTPayload, key?: Awaited<typeof signing>["privateKey"]): Promise<string> {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: "fb-1" })
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(key ?? (await signing).privateKey);
    }

    /** www.facebook.com's OpenID configuration and keys, at EXTERNAL_FACEBOOK_URL. */
    async function standInLimitedLogin(issuer?: string): Promise<StandIn> {
      const jwk = { ...(await exportJWK((await signing).publicKey)), kid: "fb-1", alg: "RS256", use: "sig" };
      let origin = "";
      const standIn = await startStandIn({
        "GET /.well-known/openid-configuration": () => ({
          json: {
            issuer: issuer ?? origin,
            authorization_endpoint: "https://facebook.com/dialog/oauth/",
            jwks_uri: `${origin}/.well-known/oauth/openid/jwks/`,
            response_types_supported: ["id_token", "token id_token"],
            id_token_signing_alg_values_supported: ["RS256"],
          },
        }),
        "GET /.well-known/oauth/openid/jwks/": () => ({ json: { keys: [jwk] } }),
      });
      origin = standIn.url;
      return standIn;
    }

    function claims(issuer: string, extra: JWTPayload = {}): JWTPayload {
      return {
        iss: issuer,
        aud: CLIENT_ID,
        sub: "10158012345678901",
        nonce: "a-nonce-facebook-does-not-hash",
        jti: "f2c3b1a0-jti",
        email: "zuck@example.com",
        given_name: "Mark",
        family_name: "Zuckerberg",
        name: "Mark E. Zuckerberg",
        picture: PICTURE,
        ...extra,
      };
    }

    it("are verified against the keys of the discovered configuration, with the nonce check always off", async () => {
      const standIn = await standInLimitedLogin();
      const provider = providerAt(facebook, standIn.url, { clientIds: ["other-app", CLIENT_ID] });
      expect(provider.idTokens?.skipNonceCheck).toBe(true);
      const verified = await provider.idTokens?.verify({ idToken: await limitedLogin(claims(standIn.url)) });
      expect(verified).toEqual({
        nonce: "a-nonce-facebook-does-not-hash",
        expiresAt: expect.any(Date),
        profile: {
          subject: "10158012345678901",
          claims: {
            iss: standIn.url,
            sub: "10158012345678901",
            provider_id: "10158012345678901",
            name: "Mark Zuckerberg",
            full_name: "Mark Zuckerberg",
            nickname: "Mark E. Zuckerberg",
            slug: "Mark E. Zuckerberg",
            avatar_url: PICTURE,
            picture: PICTURE,
          },
          emails: [{ address: "zuck@example.com", verified: true, primary: true }],
        },
      });
      // The configuration is read once, then kept.
      await provider.idTokens?.verify({ idToken: await limitedLogin(claims(standIn.url)) });
      expect(standIn.requestsTo("GET /.well-known/openid-configuration")).toHaveLength(1);
    });

    it("are refused when signed by another key, for another app, or by another issuer", async () => {
      const standIn = await standInLimitedLogin();
      const provider = providerAt(facebook, standIn.url);
      const stranger = await generateKeyPair("RS256");
      const cases: [Promise<string>, string][] = [
        [limitedLogin(claims(standIn.url), stranger.privateKey), "facebook: its id_token is not valid"],
        [limitedLogin(claims(standIn.url, { aud: "other-app" })), "facebook: its id_token is for another audience"],
        [limitedLogin(claims("https://www.facebook.com")), "facebook: its id_token has another issuer"],
      ];
      for (const [token, message] of cases) {
        await expect(provider.idTokens?.verify({ idToken: await token })).rejects.toMatchObject({
          provider: "facebook",
          stage: "id_token",
          message,
        });
      }
    });

    it("are refused when the configuration names another issuer or cannot be read", async () => {
      const impostor = await standInLimitedLogin("https://www.facebook.com");
      await expect(
        providerAt(facebook, impostor.url).idTokens?.verify({ idToken: await limitedLogin(claims(impostor.url)) }),
      ).rejects.toMatchObject({ stage: "id_token", message: "facebook: its OpenID configuration is not its own" });

      const missing = await startStandIn({});
      await expect(
        providerAt(facebook, missing.url).idTokens?.verify({ idToken: await limitedLogin(claims(missing.url)) }),
      ).rejects.toMatchObject({ stage: "id_token", message: "facebook: answered 404" });
    });
  });
});
