import { createHash } from "node:crypto";
import { OAuthProviderFailure } from "@latchkey/domain";
import { exportJWK, generateKeyPair, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { apple } from "../src/providers/apple.ts";
import {
  CLIENT_ID,
  closeStandIns,
  providerAt,
  REDIRECT_URI,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const TEAM_ID = "TEAM123456";
const SUBJECT = "001234.0123456789abcdef0123456789abcdef.0123";
const ACCESS_TOKEN = "a0b1c2.0.access";

/** Apple's keys for id_tokens, and the developer's key that signs the client-secret JWT. */
const signing = await generateKeyPair("RS256");
const developer = await generateKeyPair("ES256");
const JWK = { ...(await exportJWK(signing.publicKey)), kid: "apple-1", alg: "RS256", use: "sig" };

/** EXTERNAL_APPLE_SECRET: the client-secret JWT the developer signs beforehand, sent as is. */
const CLIENT_SECRET_JWT = await new SignJWT({})
  .setProtectedHeader({ alg: "ES256", kid: "DEVKEY1234" })
  .setIssuer(TEAM_ID)
  .setSubject(CLIENT_ID)
  .setAudience("https://appleid.apple.com")
  .setIssuedAt()
  .setExpirationTime("180d")
  .sign(developer.privateKey);

/** OIDC Core's at_hash of an RS256 token: the left half of the SHA-256, base64url. */
function atHash(accessToken: string): string {
  return createHash("sha256").update(accessToken).digest().subarray(0, 16).toString("base64url");
}

async function idToken(claims: JWTPayload, key = signing.privateKey): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "apple-1" })
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(key);
}

/** The claims of Apple's id_token for a first sign-in with a private relay address. */
function appleClaims(issuer: string, extra: JWTPayload = {}): JWTPayload {
  return {
    iss: issuer,
    aud: CLIENT_ID,
    sub: SUBJECT,
    at_hash: atHash(ACCESS_TOKEN),
    email: "abc123xyz@privaterelay.appleid.com",
    email_verified: "true",
    is_private_email: "true",
    auth_time: 1_767_000_000,
    nonce_supported: true,
    ...extra,
  };
}

/**
 * Apple's discovery, token endpoint and keys, at the issuer EXTERNAL_APPLE_URL names. The token endpoint takes
 * only client_secret_post with the developer's client-secret JWT, as Apple does.
 */
async function standInApple(token: (issuer: string) => Promise<object | string>): Promise<StandIn> {
  let issuer = "";
  let answer: object | string = {};
  const standIn = await startStandIn({
    "GET /.well-known/openid-configuration": () => ({
      json: {
        issuer,
        authorization_endpoint: `${issuer}/auth/authorize`,
        token_endpoint: `${issuer}/auth/token`,
        jwks_uri: `${issuer}/auth/keys`,
        response_types_supported: ["code"],
        response_modes_supported: ["query", "fragment", "form_post"],
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
      },
    }),
    "GET /auth/keys": () => ({ json: { keys: [JWK] } }),
    "POST /auth/token": (request: StandInRequest) => {
      if (
        request.headers.authorization !== undefined ||
        request.form["client_id"] !== CLIENT_ID ||
        request.form["client_secret"] !== CLIENT_SECRET_JWT
      ) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant" } };
      }
      return typeof answer === "string" ? { status: 400, json: { error: answer } } : { json: answer };
    },
  });
  issuer = standIn.url;
  answer = await token(issuer);
  return standIn;
}

/** Apple's token answer carrying a signed id_token. */
async function tokenAnswer(issuer: string, extra: JWTPayload = {}): Promise<object> {
  return {
    access_token: ACCESS_TOKEN,
    token_type: "Bearer",
    expires_in: 3600,
    refresh_token: "r0b1c2.0.refresh",
    id_token: await idToken(appleClaims(issuer, extra)),
  };
}

const withSecret = { secret: CLIENT_SECRET_JWT };

describe("apple", () => {
  it("sends the developer's pre-signed client-secret JWT as is, in the form", async () => {
    const standIn = await standInApple((issuer) => tokenAnswer(issuer));
    await providerAt(apple, standIn.url, withSecret).complete({ params: { code: "the-code" }, secret: null });
    const [exchange] = standIn.requestsTo("POST /auth/token");
    expect(exchange?.form["client_secret"]).toBe(CLIENT_SECRET_JWT);
    expect(exchange?.headers.authorization).toBeUndefined();
    // What Apple checks of the client secret: signed by the developer's key, for this team and client.
    const { payload } = await jwtVerify(exchange?.form["client_secret"] ?? "", developer.publicKey, {
      issuer: TEAM_ID,
      subject: CLIENT_ID,
      audience: "https://appleid.apple.com",
    });
    expect(payload.sub).toBe(CLIENT_ID);
  });

  it("stores no name on later sign-ins, nor an empty or unreadable one, and no entry for an absent email", async () => {
    const standIn = await standInApple((issuer) =>
      tokenAnswer(issuer, { email: undefined, is_private_email: false, transfer_sub: "transfer.0123" }),
    );
    const provider = providerAt(apple, standIn.url, withSecret);
    const expected = {
      subject: SUBJECT,
      claims: {
        iss: standIn.url,
        sub: SUBJECT,
        provider_id: SUBJECT,
        custom_claims: { is_private_email: false, auth_time: 1_767_000_000, transfer_sub: "transfer.0123" },
      },
      emails: [],
    };
    for (const user of [undefined, "not json", JSON.stringify({ name: { firstName: " ", lastName: "" } })]) {
      const params: Record<string, string> = { code: "the-code", ...(user === undefined ? {} : { user }) };
      const { profile } = await provider.complete({ params, secret: null });
      expect(profile).toEqual(expected);
    }
    const { profile } = await provider.complete({
      params: { code: "the-code", user: JSON.stringify({ name: { firstName: "Ada" } }) },
      secret: null,
    });
    expect(profile.claims).toMatchObject({ name: "Ada", full_name: "Ada", given_name: "Ada" });
    expect(profile.claims).not.toHaveProperty("family_name");
  });

  it("refuses an id_token signed by another key, for another client, or whose at_hash does not match", async () => {
    const stranger = await generateKeyPair("RS256");
    const cases: [string, (issuer: string) => Promise<object>, string][] = [
      [
        "another key",
        async (issuer) => ({
          access_token: ACCESS_TOKEN,
          token_type: "Bearer",
          id_token: await idToken(appleClaims(issuer), stranger.privateKey),
        }),
        "apple: its id_token is not valid",
      ],
      [
        "another client",
        (issuer) => tokenAnswer(issuer, { aud: "other.app" }),
        "apple: its id_token is for another audience",
      ],
      [
        "another access token",
        (issuer) => tokenAnswer(issuer, { at_hash: atHash("another") }),
        "apple: its id_token's at_hash does not match the access token",
      ],
      [
        "another issuer",
        async () => tokenAnswer("https://appleid.apple.com"),
        "apple: its id_token has another issuer",
      ],
    ];
    for (const [, token, message] of cases) {
      const standIn = await standInApple(token);
      const failure = await providerAt(apple, standIn.url, withSecret)
        .complete({ params: { code: "the-code" }, secret: null })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OAuthProviderFailure);
      expect(failure).toMatchObject({ provider: "apple", stage: "id_token", message });
    }
  });

  it("fails at the profile when Apple sends no id_token", async () => {
    const tokenOnly = await standInApple(async () => ({ access_token: ACCESS_TOKEN, token_type: "Bearer" }));
    await expect(
      providerAt(apple, tokenOnly.url, withSecret).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "profile", message: "apple: answered without an id_token" });
  });

  it("verifies a native app's id_token for any configured client id, and hands back its nonce", async () => {
    const standIn = await standInApple((issuer) => tokenAnswer(issuer));
    const provider = providerAt(apple, standIn.url, { ...withSecret, clientIds: [CLIENT_ID, "com.example.ios"] });
    const nonceHash = createHash("sha256").update("raw-nonce").digest("hex");
    const token = await idToken(appleClaims(standIn.url, { aud: "com.example.ios", nonce: nonceHash }));
    expect(provider.idTokens?.skipNonceCheck).toBe(false);
    const verified = await provider.idTokens?.verify({ idToken: token, accessToken: ACCESS_TOKEN });
    expect(verified).toEqual({
      nonce: nonceHash,
      expiresAt: expect.any(Date),
      profile: {
        subject: SUBJECT,
        claims: {
          iss: standIn.url,
          sub: SUBJECT,
          provider_id: SUBJECT,
          custom_claims: { is_private_email: true, auth_time: 1_767_000_000 },
        },
        emails: [{ address: "abc123xyz@privaterelay.appleid.com", verified: true, primary: true }],
      },
    });

    const foreign = await idToken(appleClaims(standIn.url, { aud: "com.other.ios" }));
    await expect(provider.idTokens?.verify({ idToken: foreign })).rejects.toMatchObject({
      provider: "apple",
      stage: "id_token",
      message: "apple: its id_token is for another audience",
    });
  });

  it("fails the id_token grant at its own stage when the discovery cannot be read", async () => {
    const broken = await startStandIn({});
    await expect(
      providerAt(apple, broken.url).idTokens?.verify({ idToken: await idToken(appleClaims(broken.url)) }),
    ).rejects.toMatchObject({ stage: "id_token", message: "apple: its OpenID configuration could not be read" });
  });
});
