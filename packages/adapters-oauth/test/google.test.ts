import { OAuthProviderFailure } from "@latchkey/domain";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { accessTokenHash } from "../src/oidc/id-token.ts";
import { google } from "../src/providers/google.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const KEY_ID = "google-2025-1";
const signingKey = await generateKeyPair("RS256");
const otherKey = await generateKeyPair("RS256");
const JWKS = { keys: [{ ...(await exportJWK(signingKey.publicKey)), kid: KEY_ID, alg: "RS256", use: "sig" }] };

const ACCESS_TOKEN = "ya29.a0-access";

/** The claims of a Workspace account's id_token, as Google issues them for the `email profile` scopes. */
function googleClaims(issuer: string, extra: JWTPayload = {}): JWTPayload {
  return {
    iss: issuer,
    azp: CLIENT_ID,
    aud: CLIENT_ID,
    sub: "110169484474386276334",
    hd: "example.com",
    email: "ada@example.com",
    email_verified: true,
    at_hash: accessTokenHash(ACCESS_TOKEN, "RS256"),
    name: "Ada Lovelace",
    picture: "https://lh3.googleusercontent.com/a/ada",
    given_name: "Ada",
    family_name: "Lovelace",
    ...extra,
  };
}

function sign(claims: JWTPayload, key = signingKey.privateKey): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: KEY_ID, typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key);
}

/**
 * accounts.google.com under EXTERNAL_GOOGLE_URL: discovery naming Google's paths, the token endpoint (HTTP Basic
 * only), the key set and the OIDC userinfo endpoint. `idToken` makes the token answer's id_token, once the
 * stand-in's URL (the issuer) is known; without it the answer carries none.
 */
async function standInGoogle(idToken?: (issuer: string) => Promise<string>): Promise<StandIn> {
  const issued: { url: string; idToken?: string } = { url: "" };
  const standIn = await startStandIn({
    "GET /.well-known/openid-configuration": () => ({
      json: {
        issuer: issued.url,
        authorization_endpoint: `${issued.url}/o/oauth2/v2/auth`,
        token_endpoint: `${issued.url}/token`,
        userinfo_endpoint: `${issued.url}/v1/userinfo`,
        jwks_uri: `${issued.url}/oauth2/v3/certs`,
        response_types_supported: ["code", "token", "id_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
      },
    }),
    "GET /oauth2/v3/certs": () => ({ json: JWKS }),
    "POST /token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client", error_description: "Unauthorized" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "Bad Request" } };
      }
      return {
        json: {
          access_token: ACCESS_TOKEN,
          expires_in: 3599,
          scope:
            "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile",
          token_type: "Bearer",
          ...(issued.idToken === undefined ? {} : { id_token: issued.idToken }),
        },
      };
    },
    "GET /v1/userinfo": (request) =>
      request.headers.authorization === `Bearer ${ACCESS_TOKEN}`
        ? {
            json: {
              sub: "110169484474386276334",
              name: "Ada Lovelace",
              given_name: "Ada",
              family_name: "Lovelace",
              picture: "https://lh3.googleusercontent.com/a/ada",
              email: "ada@gmail.com",
              email_verified: false,
            },
          }
        : { status: 401, json: { error: "invalid_request" } },
  });
  issued.url = standIn.url;
  if (idToken) issued.idToken = await idToken(standIn.url);
  return standIn;
}

describe("google", () => {
  it("reads the discovered userinfo endpoint with the bearer token when the answer has no id_token", async () => {
    const standIn = await standInGoogle();
    const { profile } = await providerAt(google, standIn.url).complete({ params: { code: "the-code" }, secret: null });
    expect(standIn.requestsTo("GET /v1/userinfo")).toHaveLength(1);
    expect(profile).toEqual({
      subject: "110169484474386276334",
      claims: {
        iss: `${standIn.url}/v1/userinfo`,
        sub: "110169484474386276334",
        provider_id: "110169484474386276334",
        name: "Ada Lovelace",
        full_name: "Ada Lovelace",
        picture: "https://lh3.googleusercontent.com/a/ada",
        avatar_url: "https://lh3.googleusercontent.com/a/ada",
      },
      emails: [{ address: "ada@gmail.com", verified: false, primary: true }],
    });
  });

  it("accepts in the code flow only an id_token for the first client id, signed with the issuer's keys", async () => {
    const forSecondClient = await standInGoogle((issuer) => sign(googleClaims(issuer, { aud: "ios-client" })));
    const failure = await providerAt(google, forSecondClient.url, { clientIds: [CLIENT_ID, "ios-client"] })
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({
      provider: "google",
      stage: "id_token",
      message: "google: its id_token is for another audience",
    });

    const forged = await standInGoogle((issuer) => sign(googleClaims(issuer), otherKey.privateKey));
    await expect(
      providerAt(google, forged.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "id_token", message: "google: its id_token is not valid" });

    const otherAccessToken = await standInGoogle((issuer) =>
      sign(googleClaims(issuer, { at_hash: accessTokenHash("another-token", "RS256") })),
    );
    await expect(
      providerAt(google, otherAccessToken.url).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({
      stage: "id_token",
      message: "google: its id_token's at_hash does not match the access token",
    });
  });

  it("verifies id_tokens of the id_token grant for every client id, against the issuer's keys", async () => {
    const standIn = await standInGoogle();
    const { idTokens } = providerAt(google, standIn.url, { clientIds: [CLIENT_ID, "ios-client"] });
    const idToken = await sign(googleClaims(standIn.url, { aud: "ios-client", nonce: "hashed-nonce" }));
    const verified = await idTokens!.verify({ idToken, accessToken: ACCESS_TOKEN });
    expect(verified.nonce).toBe("hashed-nonce");
    expect(verified.profile).toEqual({
      subject: "110169484474386276334",
      claims: {
        iss: standIn.url,
        sub: "110169484474386276334",
        provider_id: "110169484474386276334",
        name: "Ada Lovelace",
        full_name: "Ada Lovelace",
        picture: "https://lh3.googleusercontent.com/a/ada",
        avatar_url: "https://lh3.googleusercontent.com/a/ada",
        custom_claims: { hd: "example.com" },
      },
      emails: [{ address: "ada@example.com", verified: true, primary: true }],
    });
    expect(idTokens!.skipNonceCheck).toBe(false);

    const otherIssuer = await sign(googleClaims("https://accounts.example.org"));
    await expect(idTokens!.verify({ idToken: otherIssuer })).rejects.toMatchObject({
      stage: "id_token",
      message: "google: its id_token has another issuer",
    });
    const otherApp = await sign(googleClaims(standIn.url, { aud: "someone-else" }));
    await expect(idTokens!.verify({ idToken: otherApp })).rejects.toMatchObject({
      stage: "id_token",
      message: "google: its id_token is for another audience",
    });
  });
});
