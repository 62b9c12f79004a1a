import { createHash } from "node:crypto";
import { OAuthProviderFailure } from "@latchkey/domain";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { azure } from "../src/providers/azure.ts";
import {
  basicCredentials,
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

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const OTHER_TENANT = "f8cdef31-a31e-4b4a-93e4-5f571e91255a";
const CONSUMERS_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";
const ACCESS_TOKEN = "eyJ0eXAiOi.azure-access";
const SUBJECT = "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ";

const signing = await generateKeyPair("RS256");
const JWK = { ...(await exportJWK(signing.publicKey)), kid: "nOo3ZDrODXEK1jKWhXslHR_KXEg", use: "sig" };

function atHash(accessToken: string): string {
  return createHash("sha256").update(accessToken).digest().subarray(0, 16).toString("base64url");
}

async function idToken(claims: JWTPayload, key = signing.privateKey): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: JWK.kid, typ: "JWT" })
    .setIssuedAt()
    .setNotBefore("0s")
    .setExpirationTime("1h")
    .sign(key);
}

/** A v2.0 id_token of a work account of `tenant`, with the email and xms_edov optional claims. */
function azureClaims(issuer: string, tenant: string, extra: JWTPayload = {}): JWTPayload {
  return {
    ver: "2.0",
    iss: `${issuer}/${tenant}/v2.0`,
    sub: SUBJECT,
    aud: CLIENT_ID,
    nonce: "n-0S6_WzA2Mj",
    aio: "Df2UVXL1ix!lMCWMSOJBcFatzcGfvFGhjKv8q5g0x732dR5MB5BisvGQO7YWByjd8iQDLq!eGbIDakyp5mnOrcdqHeYSnltepQmRp6AIZ8jY",
    at_hash: atHash(ACCESS_TOKEN),
    uti: "cxUf8CskZEmbJXkbAwyAAA",
    rh: "0.AX0Av4j5cvGGr0GRqy180BHbR2DZ",
    name: "Megan Bowen",
    preferred_username: "MeganB@contoso.com",
    email: "MeganB@contoso.com",
    xms_edov: "1",
    oid: "00000000-0000-0000-66f3-3332eca7ea81",
    tid: tenant,
    given_name: "Megan",
    family_name: "Bowen",
    ...extra,
  };
}

/**
 * login.microsoftonline.com as EXTERNAL_AZURE_URL's origin: each tenant's (and alias's) authorize and token
 * endpoints, and each tenant's v2.0 discovery and keys. The token endpoint takes only HTTP Basic.
 */
async function standInAzure(token: (origin: string) => Promise<object>): Promise<StandIn> {
  let origin = "";
  let answer: object = {};
  const routes: Record<string, (request: StandInRequest) => object> = {};
  for (const tenant of [TENANT, OTHER_TENANT, CONSUMERS_TENANT, "a/b"]) {
    routes[`GET /${tenant}/v2.0/.well-known/openid-configuration`] = () => ({
      json: {
        issuer: `${origin}/${tenant}/v2.0`,
        authorization_endpoint: `${origin}/${tenant}/oauth2/v2.0/authorize`,
        token_endpoint: `${origin}/${tenant}/oauth2/v2.0/token`,
        jwks_uri: `${origin}/${tenant}/discovery/v2.0/keys`,
        response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
        id_token_signing_alg_values_supported: ["RS256"],
      },
    });
    routes[`GET /${tenant}/discovery/v2.0/keys`] = () => ({ json: { keys: [JWK] } });
  }
  for (const authority of [TENANT, "common", "organizations", "consumers"]) {
    routes[`POST /${authority}/oauth2/v2.0/token`] = (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET || request.form["client_secret"]) {
        return { status: 401, json: { error: "invalid_client", error_description: "AADSTS7000215: Invalid client" } };
      }
      if (
        request.form["grant_type"] !== "authorization_code" ||
        request.form["code"] !== "the-code" ||
        request.form["redirect_uri"] !== REDIRECT_URI
      ) {
        return { status: 400, json: { error: "invalid_grant", error_description: "AADSTS70008: expired code" } };
      }
      return { json: answer };
    };
  }
  const standIn = await startStandIn(routes);
  origin = standIn.url;
  answer = await token(origin);
  return standIn;
}

async function tokenAnswer(idTokenClaims: JWTPayload | undefined): Promise<object> {
  return {
    token_type: "Bearer",
    scope: "openid email profile",
    expires_in: 3599,
    access_token: ACCESS_TOKEN,
    refresh_token: "0.AX0A-azure-refresh",
    ...(idTokenClaims ? { id_token: await idToken(idTokenClaims) } : {}),
  };
}

const discoveries = (standIn: StandIn) =>
  standIn.requests.filter((request) => request.path.endsWith("/.well-known/openid-configuration"));

describe("azure", () => {
  it("counts the email as verified per xms_edov (else, the pinned tenant's), and reports none when there is none", async () => {
    const cases: [JWTPayload, { address: string; verified: boolean; primary: boolean }[]][] = [
      [{ xms_edov: true }, [{ address: "MeganB@contoso.com", verified: true, primary: true }]],
      [{ xms_edov: "true" }, [{ address: "MeganB@contoso.com", verified: true, primary: true }]],
      [{ xms_edov: undefined }, [{ address: "MeganB@contoso.com", verified: true, primary: true }]],
      [{ xms_edov: "0" }, [{ address: "MeganB@contoso.com", verified: false, primary: true }]],
      [{ xms_edov: false }, [{ address: "MeganB@contoso.com", verified: false, primary: true }]],
      [{ xms_edov: 1 }, [{ address: "MeganB@contoso.com", verified: false, primary: true }]],
      [{ email: undefined }, []],
    ];
    for (const [extra, emails] of cases) {
      const standIn = await standInAzure((origin) => tokenAnswer(azureClaims(origin, TENANT, extra)));
      const { profile } = await providerAt(azure, `${standIn.url}/${TENANT}`).complete({
        params: { code: "the-code" },
        secret: null,
      });
      expect(profile.emails).toEqual(emails);
    }
  });

  it("under a multi-tenant authority, counts an address as verified only when xms_edov says so", async () => {
    // Any tenant's admin sets any address on its users: without the claim, the address is only claimed.
    for (const [edov, verified] of [
      [undefined, false],
      ["1", true],
      [false, false],
    ] as const) {
      for (const authority of ["common", "organizations"]) {
        const standIn = await standInAzure((origin) =>
          tokenAnswer(azureClaims(origin, OTHER_TENANT, { xms_edov: edov })),
        );
        const { profile } = await providerAt(azure, `${standIn.url}/${authority}`).complete({
          params: { code: "the-code" },
          secret: null,
        });
        expect([authority, edov, profile.emails[0]?.verified]).toEqual([authority, edov, verified]);
      }
    }
  });

  it("refuses, before fetching anything, a token of another tenant than the pinned one", async () => {
    const standIn = await standInAzure((origin) => tokenAnswer(azureClaims(origin, OTHER_TENANT)));
    const failure = await providerAt(azure, `${standIn.url}/${TENANT}`)
      .complete({ params: { code: "the-code" }, secret: null })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthProviderFailure);
    expect(failure).toMatchObject({ stage: "id_token", message: "azure: its id_token has another issuer" });
    expect(discoveries(standIn)).toEqual([]);
  });

  it("under /common, verifies the token with the keys of the tenant it names", async () => {
    const standIn = await standInAzure((origin) => tokenAnswer(azureClaims(origin, OTHER_TENANT)));
    const { profile } = await providerAt(azure, `${standIn.url}/common`).complete({
      params: { code: "the-code" },
      secret: null,
    });
    expect(profile.claims["iss"]).toBe(`${standIn.url}/${OTHER_TENANT}/v2.0`);
    expect(standIn.requestsTo(`POST /common/oauth2/v2.0/token`)).toHaveLength(1);
    expect(discoveries(standIn).map((request) => request.path)).toEqual([
      `/${OTHER_TENANT}/v2.0/.well-known/openid-configuration`,
    ]);
  });

  it("under /common, refuses an issuer of another shape or host before fetching its discovery", async () => {
    const shapes = [
      (origin: string) => `${origin}/a/b/v2.0`,
      () => `https://login.microsoftonline.com.example.com/${TENANT}/v2.0`,
      () => `https://login.example.com/${TENANT}/v2.0`,
      (origin: string) => `${origin}/${TENANT}/v1.0`,
    ];
    for (const shape of shapes) {
      const standIn = await standInAzure((origin) => tokenAnswer(azureClaims(origin, TENANT, { iss: shape(origin) })));
      await expect(
        providerAt(azure, `${standIn.url}/common`).complete({ params: { code: "the-code" }, secret: null }),
      ).rejects.toMatchObject({ stage: "id_token", message: "azure: its id_token has another issuer" });
      expect(discoveries(standIn)).toEqual([]);
    }
  });

  it("under /consumers, accepts personal accounts, whose issuer is the consumers tenant, and no other", async () => {
    const personal = await standInAzure((origin) => tokenAnswer(azureClaims(origin, CONSUMERS_TENANT)));
    const { profile } = await providerAt(azure, `${personal.url}/consumers`).complete({
      params: { code: "the-code" },
      secret: null,
    });
    expect(profile.claims["iss"]).toBe(`${personal.url}/${CONSUMERS_TENANT}/v2.0`);

    const work = await standInAzure((origin) => tokenAnswer(azureClaims(origin, TENANT)));
    await expect(
      providerAt(azure, `${work.url}/consumers`).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "id_token", message: "azure: its id_token has another issuer" });
  });

  it("fails at the profile when the token answer has no id_token", async () => {
    const tokenOnly = await standInAzure(() => tokenAnswer(undefined));
    await expect(
      providerAt(azure, `${tokenOnly.url}/${TENANT}`).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "profile", message: "azure: answered without an id_token" });
  });

  it("refuses a token signed by another key or for another client", async () => {
    const stranger = await generateKeyPair("RS256");
    const forged = await standInAzure(async (origin) => ({
      access_token: ACCESS_TOKEN,
      token_type: "Bearer",
      id_token: await idToken(azureClaims(origin, TENANT), stranger.privateKey),
    }));
    await expect(
      providerAt(azure, `${forged.url}/${TENANT}`).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "id_token", message: "azure: its id_token is not valid" });

    const elsewhere = await standInAzure((origin) => tokenAnswer(azureClaims(origin, TENANT, { aud: "other-app" })));
    await expect(
      providerAt(azure, `${elsewhere.url}/${TENANT}`).complete({ params: { code: "the-code" }, secret: null }),
    ).rejects.toMatchObject({ stage: "id_token", message: "azure: its id_token is for another audience" });
  });

  it("verifies a native app's id_token for any client id with the keys of the tenant it names", async () => {
    const standIn = await standInAzure(async () => ({}));
    const provider = providerAt(azure, `${standIn.url}/common`, { clientIds: [CLIENT_ID, "mobile-app"] });
    const token = await idToken(azureClaims(standIn.url, OTHER_TENANT, { aud: "mobile-app", email: undefined }));
    expect(provider.idTokens?.skipNonceCheck).toBe(false);
    const verified = await provider.idTokens?.verify({ idToken: token, accessToken: ACCESS_TOKEN });
    expect(verified?.nonce).toBe("n-0S6_WzA2Mj");
    expect(verified?.profile).toEqual({
      subject: SUBJECT,
      claims: {
        iss: `${standIn.url}/${OTHER_TENANT}/v2.0`,
        sub: SUBJECT,
        provider_id: SUBJECT,
        full_name: "Megan Bowen",
        preferred_username: "MeganB@contoso.com",
        custom_claims: {
          xms_edov: "1",
          oid: "00000000-0000-0000-66f3-3332eca7ea81",
          tid: OTHER_TENANT,
          given_name: "Megan",
          family_name: "Bowen",
        },
      },
      emails: [],
    });
    await expect(provider.idTokens?.verify({ idToken: token, accessToken: "another" })).rejects.toMatchObject({
      stage: "id_token",
      message: "azure: its id_token's at_hash does not match the access token",
    });
  });

  it("refuses a native app's id_token of another issuer host before fetching anything", async () => {
    const standIn = await standInAzure(async () => ({}));
    const provider = providerAt(azure, `${standIn.url}/common`, { skipNonceCheck: true });
    expect(provider.idTokens?.skipNonceCheck).toBe(true);
    for (const iss of [`https://login.example.com/${TENANT}/v2.0`, `http://localhost:1/${TENANT}/v2.0`]) {
      const token = await idToken(azureClaims(standIn.url, TENANT, { iss }));
      await expect(provider.idTokens?.verify({ idToken: token })).rejects.toMatchObject({
        provider: "azure",
        stage: "id_token",
        message: "azure: its id_token has another issuer",
      });
    }
    await expect(provider.idTokens?.verify({ idToken: "not-a-jwt" })).rejects.toMatchObject({
      stage: "id_token",
      message: "azure: its id_token is not valid",
    });
    expect(standIn.requests).toEqual([]);
  });
});
