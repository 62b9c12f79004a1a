import { createHash } from "node:crypto";
import { AuthError, type CustomProvider, OAuthProviderFailure } from "@latchkey/domain";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { createCustomProviderRuntime } from "../src/custom/custom-provider.ts";
import { guardedFetch } from "../src/custom/guarded-fetch.ts";
import {
  basicCredentials,
  CLIENT_ID,
  CLIENT_SECRET,
  closeStandIns,
  REDIRECT_URI,
  type StandIn,
  startStandIn,
} from "./support/stand-in.ts";

afterEach(closeStandIns);

const strict = createCustomProviderRuntime({ redirectUri: REDIRECT_URI, allowLoopback: false });
const local = createCustomProviderRuntime({ redirectUri: REDIRECT_URI, allowLoopback: true });

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AuthError);
  expect((error as AuthError).code).toBe("validation_failed");
  return (error as AuthError).message;
}

describe("a custom provider's URLs", () => {
  it("must be https on a public address, with GoTrue's messages", async () => {
    expect(await refusal(strict.checkUrl("not a url"))).toBe("Invalid URL format");
    expect(await refusal(strict.checkUrl("http://idp.example/"))).toBe("URL must use HTTPS");
    expect(await refusal(strict.checkUrl("https://localhost/"))).toBe(
      "URL cannot point to localhost or loopback addresses",
    );
    expect(await refusal(strict.checkUrl("https://app.localhost/"))).toBe(
      "URL cannot point to localhost or loopback addresses",
    );
    expect(await refusal(strict.checkUrl("https://127.0.0.2/"))).toBe("URL cannot resolve to loopback addresses");
    expect(await refusal(strict.checkUrl("https://10.1.2.3/"))).toBe("URL cannot resolve to private network addresses");
    expect(await refusal(strict.checkUrl("https://[::ffff:192.168.1.1]/"))).toBe(
      "URL cannot resolve to private network addresses",
    );
    expect(await refusal(strict.checkUrl("https://169.254.169.254/latest/meta-data"))).toBe(
      "URL cannot resolve to link-local addresses",
    );
    expect(await refusal(strict.checkUrl("https://[fe80::1]/"))).toBe("URL cannot resolve to link-local addresses");
    await expect(strict.checkUrl("https://93.184.216.34/")).resolves.toBeUndefined();
  });

  it("may be http and loopback with CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS, never private or link-local", async () => {
    await expect(local.checkUrl("http://127.0.0.1:8080/realms/acme")).resolves.toBeUndefined();
    await expect(local.checkUrl("http://localhost:8080/")).resolves.toBeUndefined();
    expect(await refusal(local.checkUrl("http://10.0.0.1/"))).toBe("URL cannot resolve to private network addresses");
    expect(await refusal(local.checkUrl("http://169.254.169.254/"))).toBe("URL cannot resolve to link-local addresses");
  });

  it("are checked again where the connection is made: a name that resolves to loopback then is refused", async () => {
    const standIn = await startStandIn({ "GET /": () => ({ json: {} }) });
    // The name passes every check made before the request; only the socket's own lookup meets the address.
    const rebinding = guardedFetch({ allowLoopback: false }, (_host, callback) =>
      callback(null, [{ address: "127.0.0.1", family: 4 }]),
    );
    const failure = await rebinding(`https://rebind.example:${new URL(standIn.url).port}/`).catch((error) => error);
    expect(String(failure.cause)).toContain("URL cannot resolve to loopback addresses");
    expect(standIn.requests).toHaveLength(0);
  });
});

describe("OIDC discovery of a custom provider", () => {
  const documentOf = (standIn: StandIn, fields: Record<string, unknown> = {}) => ({
    issuer: standIn.url,
    authorization_endpoint: `${standIn.url}/authorize`,
    token_endpoint: `${standIn.url}/token`,
    userinfo_endpoint: `${standIn.url}/userinfo`,
    jwks_uri: `${standIn.url}/jwks`,
    scopes_supported: ["openid", "email"],
    ...fields,
  });

  it("reads the issuer's document, which must name that issuer and the endpoints a sign-in needs", async () => {
    let fields: Record<string, unknown> = {};
    const standIn: StandIn = await startStandIn({
      "GET /.well-known/openid-configuration": () => ({ json: documentOf(standIn, fields) }),
    });
    const url = `${standIn.url}/.well-known/openid-configuration`;
    expect(await local.discover(url, standIn.url)).toEqual({
      issuer: standIn.url,
      authorizationEndpoint: `${standIn.url}/authorize`,
      tokenEndpoint: `${standIn.url}/token`,
      userinfoEndpoint: `${standIn.url}/userinfo`,
      jwksUri: `${standIn.url}/jwks`,
      scopesSupported: ["openid", "email"],
      responseTypesSupported: null,
      grantTypesSupported: null,
      subjectTypesSupported: null,
    });
    expect(await refusal(local.discover(url, "https://other.example"))).toMatch(/^OIDC discovery from ".+" failed: /);
    fields = { jwks_uri: undefined, token_endpoint: undefined };
    expect(await refusal(local.discover(url, standIn.url))).toBe(
      "OIDC discovery document is missing required fields: token_endpoint, jwks_uri",
    );
  });
});

/** A provider as an admin stores it, for the stand-in at `url`. */
function stored(url: string, fields: Partial<CustomProvider>): CustomProvider {
  return {
    id: "3f0b6a52-0d7e-4b0e-9d0a-1f1c1d0e0a01",
    providerType: "oauth2",
    identifier: "custom:acme",
    name: "Acme",
    clientId: CLIENT_ID,
    sealedClientSecret: "sealed",
    acceptableClientIds: [],
    scopes: ["profile"],
    pkceEnabled: true,
    attributeMapping: {},
    customClaimsAllowlist: [],
    authorizationParams: {},
    enabled: true,
    emailOptional: false,
    issuer: null,
    discoveryUrl: null,
    skipNonceCheck: false,
    discovery: null,
    discoveryCachedAt: null,
    authorizationUrl: `${url}/authorize`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
    jwksUri: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...fields,
  };
}

/** A provider's token endpoint that checks the client, the code and the PKCE verifier, answering `tokens`. */
function tokenEndpoint(challenge: () => string | null, tokens: () => Record<string, unknown>) {
  return (request: Parameters<Parameters<typeof startStandIn>[0][string]>[0]) => {
    const client = basicCredentials(request);
    if (client?.id !== CLIENT_ID || client.secret !== CLIENT_SECRET)
      return { status: 401, json: { error: "invalid_client" } };
    const verifier = request.form["code_verifier"] ?? "";
    if (createHash("sha256").update(verifier).digest("base64url") !== challenge()) {
      return { status: 400, json: { error: "invalid_grant" } };
    }
    return { json: { token_type: "Bearer", access_token: "at-1", ...tokens() } };
  };
}

describe("signing in with a custom provider", () => {
  it("OAuth 2.0: PKCE and the admin's parameters towards it, then the mapped userinfo", async () => {
    let challenge: string | null = null;
    const standIn = await startStandIn({
      "POST /token": tokenEndpoint(
        () => challenge,
        () => ({}),
      ),
      "GET /userinfo": () => ({
        json: {
          id: 4242,
          login: "ada",
          mail: "Ada@Acme.example",
          lang: "en",
          email_verified: false,
          team: "eng",
          secret: "x",
        },
      }),
    });
    const provider = local.provider(
      stored(standIn.url, {
        attributeMapping: { sub: "id", email: "mail", name: "login", locale: "lang" },
        customClaimsAllowlist: ["team"],
        authorizationParams: { prompt: "consent" },
      }),
      CLIENT_SECRET,
    );
    const start = await provider.authorize({ state: "state-1", scopes: ["read:org"], params: [] });
    const url = new URL(start.url);
    expect(url.searchParams.get("scope")).toBe("profile read:org");
    expect(url.searchParams.get("prompt")).toBe("consent");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    challenge = url.searchParams.get("code_challenge");
    const signIn = await provider.complete({ params: { code: "c", state: "state-1" }, secret: start.secret ?? null });
    expect(signIn.profile).toEqual({
      subject: "4242",
      claims: { sub: "4242", provider_id: "4242", name: "ada", locale: "en", custom_claims: { team: "eng" } },
      emails: [{ address: "Ada@Acme.example", verified: false, primary: true }],
    });
  });

  it("OIDC: the id_token of the token answer, checked against the stored discovery document", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256" };
    let challenge: string | null = null;
    let audience = CLIENT_ID;
    const standIn: StandIn = await startStandIn({
      "GET /jwks": () => ({ json: { keys: [jwk] } }),
      "POST /token": tokenEndpoint(
        () => challenge,
        () => ({ id_token: idToken }),
      ),
    });
    let idToken = "";
    const sign = () =>
      new SignJWT({ email: "grace@corp.example", email_verified: true, name: "Grace", groups: ["navy"] })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(standIn.url)
        .setSubject("grace-1")
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey);
    const oidc = stored(standIn.url, {
      providerType: "oidc",
      identifier: "custom:corp",
      scopes: ["openid", "email"],
      issuer: standIn.url,
      acceptableClientIds: ["ios-app"],
      customClaimsAllowlist: ["groups"],
      authorizationUrl: null,
      tokenUrl: null,
      userinfoUrl: null,
      discovery: {
        issuer: standIn.url,
        authorizationEndpoint: `${standIn.url}/authorize`,
        tokenEndpoint: `${standIn.url}/token`,
        userinfoEndpoint: null,
        jwksUri: `${standIn.url}/jwks`,
        scopesSupported: null,
        responseTypesSupported: null,
        grantTypesSupported: null,
        subjectTypesSupported: null,
      },
    });
    const signInAs = async () => {
      const provider = local.provider(oidc, CLIENT_SECRET);
      const start = await provider.authorize({ state: "s", scopes: [], params: [] });
      challenge = new URL(start.url).searchParams.get("code_challenge");
      idToken = await sign();
      return provider.complete({ params: { code: "c" }, secret: start.secret ?? null });
    };
    const { profile } = await signInAs();
    expect(profile).toMatchObject({
      subject: "grace-1",
      claims: { iss: standIn.url, name: "Grace", custom_claims: { groups: ["navy"] } },
      emails: [{ address: "grace@corp.example", verified: true, primary: true }],
    });
    audience = "ios-app";
    expect((await signInAs()).profile.subject).toBe("grace-1");
    audience = "someone-else";
    await expect(signInAs()).rejects.toBeInstanceOf(OAuthProviderFailure);
  });
});
