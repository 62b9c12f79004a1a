import { OAuthProviderFailure } from "@latchkey/domain";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { linkedin } from "../src/providers/linkedin.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const KEY_ID = "d929668a-bab1-4c69-9598-4373149723ff";
const signingKey = await generateKeyPair("RS256");
const otherKey = await generateKeyPair("RS256");
const JWKS = { keys: [{ ...(await exportJWK(signingKey.publicKey)), kid: KEY_ID, alg: "RS256", use: "sig" }] };

const ACCESS_TOKEN = "AQX-linkedin-access";

/** LinkedIn's id_token claims: `email_verified` is a string. */
function linkedinClaims(issuer: string, extra: JWTPayload = {}): JWTPayload {
  return {
    iss: issuer,
    aud: CLIENT_ID,
    sub: "782bbtaQ",
    name: "John Doe",
    given_name: "John",
    family_name: "Doe",
    picture: "https://media.licdn.example/dms/image/john",
    email: "doe@example.com",
    email_verified: "true",
    locale: "en-US",
    ...extra,
  };
}

function sign(claims: JWTPayload, key = signingKey.privateKey): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: KEY_ID })
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key);
}

/**
 * LinkedIn under EXTERNAL_LINKEDIN_URL, which replaces both api.linkedin.com (authorization, token) and the
 * issuer www.linkedin.com/oauth (discovery, keys). The token endpoint takes the secret in the form body only.
 */
async function standInLinkedIn(idToken?: (issuer: string) => Promise<string>): Promise<StandIn> {
  const issued: { url: string; idToken?: string } = { url: "" };
  const standIn = await startStandIn({
    "GET /.well-known/openid-configuration": () => ({
      json: {
        issuer: issued.url,
        authorization_endpoint: `${issued.url}/oauth/v2/authorization`,
        token_endpoint: `${issued.url}/oauth/v2/accessToken`,
        userinfo_endpoint: `${issued.url}/v2/userinfo`,
        jwks_uri: `${issued.url}/oauth/openid/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["pairwise"],
        id_token_signing_alg_values_supported: ["RS256"],
      },
    }),
    "GET /oauth/openid/jwks": () => ({ json: JWKS }),
    "POST /oauth/v2/accessToken": (request) => {
      if (
        request.headers.authorization !== undefined ||
        request.form["client_id"] !== CLIENT_ID ||
        request.form["client_secret"] !== CLIENT_SECRET
      ) {
        return { status: 401, json: { error: "invalid_client", error_description: "Client authentication failed" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return {
          status: 400,
          json: {
            error: "invalid_request",
            error_description:
              "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code",
          },
        };
      }
      return {
        json: {
          access_token: ACCESS_TOKEN,
          expires_in: 5183999,
          scope: "email,openid,profile",
          token_type: "Bearer",
          ...(issued.idToken === undefined ? {} : { id_token: issued.idToken }),
        },
      };
    },
  });
  issued.url = standIn.url;
  if (idToken) issued.idToken = await idToken(standIn.url);
  return standIn;
}

describe("linkedin", () => {
  it('reads email_verified as the string "true" or "false", or a boolean; anything else is unverified', async () => {
    const standIn = await standInLinkedIn();
    const { idTokens } = providerAt(linkedin, standIn.url);
    const verifiedBy = async (value: unknown) => {
      const idToken = await sign(linkedinClaims(standIn.url, { email_verified: value }));
      const { profile } = await idTokens!.verify({ idToken });
      return profile.emails[0]?.verified;
    };
    expect(await verifiedBy("true")).toBe(true);
    expect(await verifiedBy(true)).toBe(true);
    expect(await verifiedBy("false")).toBe(false);
    expect(await verifiedBy(false)).toBe(false);
    expect(await verifiedBy("yes")).toBe(false);
    expect(await verifiedBy(undefined)).toBe(false);
  });

  it("fails at the profile without an id_token, and at the id_token when it is not the issuer's", async () => {
    const without = await standInLinkedIn();
    const failure = await providerAt(linkedin, without.url)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({
      provider: "linkedin",
      stage: "profile",
      message: "linkedin: answered without an id_token",
    });

    const forged = await standInLinkedIn((issuer) => sign(linkedinClaims(issuer), otherKey.privateKey));
    await expect(
      providerAt(linkedin, forged.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "id_token", message: "linkedin: its id_token is not valid" });

    const elsewhere = await standInLinkedIn(() => sign(linkedinClaims("https://www.linkedin.com/oauth")));
    await expect(
      providerAt(linkedin, elsewhere.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "id_token", message: "linkedin: its id_token has another issuer" });
  });

  it("verifies id_tokens of the id_token grant for every client id", async () => {
    const standIn = await standInLinkedIn();
    const { idTokens } = providerAt(linkedin, standIn.url, { clientIds: [CLIENT_ID, "android-client"] });
    const idToken = await sign(
      linkedinClaims(standIn.url, { aud: "android-client", nonce: "hashed-nonce", email_verified: "false" }),
    );
    expect(await idTokens!.verify({ idToken })).toEqual({
      nonce: "hashed-nonce",
      expiresAt: expect.any(Date),
      profile: {
        subject: "782bbtaQ",
        claims: {
          iss: standIn.url,
          sub: "782bbtaQ",
          provider_id: "782bbtaQ",
          name: "John Doe",
          given_name: "John",
          family_name: "Doe",
          locale: "en-US",
          picture: "https://media.licdn.example/dms/image/john",
        },
        emails: [{ address: "doe@example.com", verified: false, primary: true }],
      },
    });
    const otherApp = await sign(linkedinClaims(standIn.url, { aud: "someone-else" }));
    await expect(idTokens!.verify({ idToken: otherApp })).rejects.toMatchObject({
      stage: "id_token",
      message: "linkedin: its id_token is for another audience",
    });
  });
});
