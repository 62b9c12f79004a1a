import { OAuthProviderFailure } from "@latchkey/domain";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { keycloak } from "../src/providers/keycloak.ts";
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

const KEY_ID = "realm-rs256";
const signingKey = await generateKeyPair("RS256");
const JWKS = { keys: [{ ...(await exportJWK(signingKey.publicKey)), kid: KEY_ID, alg: "RS256", use: "sig" }] };

const ACCESS_TOKEN = "eyJ.keycloak-access";
const SUB = "f1b6e3a0-6b8f-4d3c-9a51-2c0d5e1a7b42";

/** Keycloak's userinfo with the default `profile` and `email` mappers, plus a realm's own `groups` mapper. */
const USERINFO = {
  sub: SUB,
  email_verified: true,
  name: "Grace Hopper",
  preferred_username: "grace",
  given_name: "Grace",
  family_name: "Hopper",
  email: "grace@example.com",
  groups: ["/navy", "/cobol"],
};

function sign(claims: JWTPayload): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: KEY_ID, typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(signingKey.privateKey);
}

/** One realm, `acme`, at `<stand-in>/realms/acme`: its OIDC endpoints, discovery and keys. */
async function standInKeycloak(userinfo: object = USERINFO): Promise<{ standIn: StandIn; realm: string }> {
  const at: { realm: string } = { realm: "" };
  const standIn = await startStandIn({
    "GET /realms/acme/.well-known/openid-configuration": () => ({
      json: {
        issuer: at.realm,
        authorization_endpoint: `${at.realm}/protocol/openid-connect/auth`,
        token_endpoint: `${at.realm}/protocol/openid-connect/token`,
        userinfo_endpoint: `${at.realm}/protocol/openid-connect/userinfo`,
        jwks_uri: `${at.realm}/protocol/openid-connect/certs`,
      },
    }),
    "GET /realms/acme/protocol/openid-connect/certs": () => ({ json: JWKS }),
    "POST /realms/acme/protocol/openid-connect/token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "unauthorized_client", error_description: "Invalid client credentials" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "Code not valid" } };
      }
      return {
        json: {
          access_token: ACCESS_TOKEN,
          expires_in: 300,
          refresh_expires_in: 1800,
          refresh_token: "eyJ.keycloak-refresh",
          token_type: "Bearer",
          id_token: "eyJ.not-read",
          "not-before-policy": 0,
          session_state: "5c3b",
          scope: "openid profile email",
        },
      };
    },
    "GET /realms/acme/protocol/openid-connect/userinfo": (request) =>
      request.headers.authorization === `Bearer ${ACCESS_TOKEN}`
        ? { json: userinfo }
        : { status: 401, json: { error: "invalid_token" } },
  });
  at.realm = `${standIn.url}/realms/acme`;
  return { standIn, realm: at.realm };
}

describe("keycloak", () => {
  it("reads a missing email_verified as unverified and refuses one that is not a JSON boolean", async () => {
    const { realm } = await standInKeycloak({ sub: SUB, email: "grace@example.com" });
    const { profile } = await providerAt(keycloak, realm).complete({ params: { code: "the-code" }, secret: null });
    expect(profile).toEqual({
      subject: SUB,
      claims: { iss: realm, sub: SUB, provider_id: SUB },
      emails: [{ address: "grace@example.com", verified: false, primary: true }],
    });

    const stringly = await standInKeycloak({ ...USERINFO, email_verified: "true" });
    const failure = await providerAt(keycloak, stringly.realm)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({
      provider: "keycloak",
      stage: "profile",
      message: "keycloak: answered an email_verified that is not a boolean",
    });
  });

  it("verifies id_tokens of the id_token grant: issuer exactly the realm, keys from its discovery, any client id", async () => {
    const { standIn, realm } = await standInKeycloak();
    const { idTokens } = providerAt(keycloak, realm, { clientIds: ["web-app", CLIENT_ID] });
    const idToken = await sign({
      iss: realm,
      aud: CLIENT_ID,
      azp: CLIENT_ID,
      sub: SUB,
      typ: "ID",
      nonce: "hashed-nonce",
      session_state: "5c3b",
      sid: "5c3b",
      email_verified: true,
      name: "Grace Hopper",
      preferred_username: "grace",
      email: "grace@example.com",
    });
    const verified = await idTokens!.verify({ idToken });
    expect(standIn.requestsTo("GET /realms/acme/.well-known/openid-configuration")).toHaveLength(1);
    expect(verified).toEqual({
      nonce: "hashed-nonce",
      expiresAt: expect.any(Date),
      profile: {
        subject: SUB,
        claims: {
          iss: realm,
          sub: SUB,
          provider_id: SUB,
          name: "Grace Hopper",
          full_name: "Grace Hopper",
          custom_claims: { preferred_username: "grace" },
        },
        emails: [{ address: "grace@example.com", verified: true, primary: true }],
      },
    });

    const otherRealm = await sign({ iss: `${standIn.url}/realms/other`, aud: CLIENT_ID, sub: SUB });
    await expect(idTokens!.verify({ idToken: otherRealm })).rejects.toMatchObject({
      provider: "keycloak",
      stage: "id_token",
      message: "keycloak: its id_token has another issuer",
    });
  });

  it("cannot be made without EXTERNAL_KEYCLOAK_URL", () => {
    expect(() => providerAt(keycloak, "", { url: undefined })).toThrow("EXTERNAL_KEYCLOAK_URL is required");
  });
});
