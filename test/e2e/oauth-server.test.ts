import { newKeyRing } from "@latchkey/adapters-crypto";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, memoryStorage, serviceRoleKey } from "./support.ts";

// Latchkey as an OAuth 2.1 / OpenID Connect provider, end to end. The third-party app is oauth4webapi, a client
// library that checks what the server says (issuer, id_token claims and signature, response shapes); the app's
// consent page is supabase-js's auth.oauth, with the user's session; the admin is supabase-js's admin.oauth.
//
// The issuer is API_EXTERNAL_URL (startTestServer's http://localhost:9999, standing in for the proxy in front of the
// server), not the address the test server listens on. oauth4webapi compares the issuer it discovers with the one it
// asked, and the id_token's `iss` with both, so the third party talks to the issuer's URLs and `proxy` below sends
// them to the test server, as the proxy would.

const SITE_URL = "http://localhost:3000";
const CONSENT_PAGE = `${SITE_URL}/oauth/consent`;
const APP_CALLBACK = "https://third-party.example.com/callback";
/** An MCP client's local listener (RFC 8252's loopback redirect). */
const MCP_CALLBACK = "http://127.0.0.1:33418/callback";
const SCOPE = "openid email profile";
const password = "correct-horse-battery";

const ring = newKeyRing("RS256");
let server: TestServer;
let issuer: URL;
let as: oauth.AuthorizationServer;
let admin: SupabaseClient;
let anon: string;

beforeAll(async () => {
  server = await startTestServer({
    AUTH_SITE_URL: SITE_URL,
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_JWT_KEYS: ring,
    AUTH_OAUTH_SERVER_ENABLED: "true",
    AUTH_OAUTH_SERVER_AUTHORIZATION_PATH: "/oauth/consent",
    AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: "true",
  });
  issuer = new URL(server.config.jwt.issuer);
  admin = supabase(await serviceRoleKey(), { persist: false });
  anon = await anonKey();
  as = await discover();
});
afterAll(async () => {
  await server?.close();
});

/** A request to one of the issuer's URLs, delivered to the test server. */
function proxy(url: string | URL, init?: RequestInit): Promise<Response> {
  const target = new URL(url);
  if (target.origin !== issuer.origin) throw new Error(`${target.href} is not the issuer's`);
  return fetch(`${server.url}${target.pathname}${target.search}`, init);
}

/** What oauth4webapi needs for every request: plain http (the test server), through the proxy. */
const http = () => ({ [oauth.allowInsecureRequests]: true, [oauth.customFetch]: proxy }) as const;

function supabase(key: string, { persist = true }: { persist?: boolean } = {}) {
  return createClient(server.url, key, {
    realtime: { transport: ws as never },
    auth: {
      storage: memoryStorage(),
      storageKey: `sb-oauth-server-${crypto.randomUUID()}`,
      persistSession: persist,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
  });
}

let people = 0;
/** A new account, signed in on the app that hosts the consent page. */
async function signedUp() {
  people += 1;
  const email = `oauth-${people}-${Date.now()}@example.com`;
  const app = supabase(anon);
  const { data, error } = await app.auth.signUp({ email, password, options: { data: { name: `Person ${people}` } } });
  expect(error).toBeNull();
  return { app, email, userId: data.user!.id };
}

async function discover(): Promise<oauth.AuthorizationServer> {
  const response = await oauth.discoveryRequest(issuer, http());
  return oauth.processDiscoveryResponse(issuer, response);
}

/** A third-party app: its registration, as oauth4webapi holds it, and how it authenticates at the token endpoint. */
interface ThirdParty {
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  readonly redirectUri: string;
}

/** RFC 7591: the app registers itself. */
async function registerDynamically(metadata: Partial<oauth.Client>): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(as, metadata, http());
  return oauth.processDynamicClientRegistrationResponse(response);
}

async function confidentialApp(): Promise<ThirdParty> {
  const client = await registerDynamically({
    client_name: "Third party",
    redirect_uris: [APP_CALLBACK],
    token_endpoint_auth_method: "client_secret_basic",
  });
  expect(client).toMatchObject({ client_type: "confidential", client_secret: expect.any(String) });
  return {
    client,
    clientAuth: oauth.ClientSecretBasic(client["client_secret"] as string),
    redirectUri: APP_CALLBACK,
  };
}

async function mcpClient(): Promise<ThirdParty> {
  const client = await registerDynamically({
    client_name: "MCP client",
    redirect_uris: [MCP_CALLBACK],
    token_endpoint_auth_method: "none",
  });
  expect(client).toMatchObject({ client_type: "public", token_endpoint_auth_method: "none" });
  expect(client).not.toHaveProperty("client_secret");
  return { client, clientAuth: oauth.None(), redirectUri: MCP_CALLBACK };
}

/** What the app keeps between sending the browser to the server and the browser coming back. */
interface PendingAuthorization {
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
  readonly authorizationId: string;
}

/** The authorization URL (PKCE S256, state, nonce), followed by the browser: to the consent page. */
async function authorize(party: ThirdParty, scope = SCOPE): Promise<PendingAuthorization> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: party.client.client_id,
    redirect_uri: party.redirectUri,
    response_type: "code",
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  const response = await proxy(url, { redirect: "manual" });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(CONSENT_PAGE);
  return { verifier, state, nonce, authorizationId: location.searchParams.get("authorization_id")! };
}

/** The consent page: shows the request, and the user approves it; where the browser goes next. */
async function approve(app: SupabaseClient, pending: PendingAuthorization): Promise<URL> {
  const { data: details, error } = await app.auth.oauth.getAuthorizationDetails(pending.authorizationId);
  expect(error).toBeNull();
  expect(details).toHaveProperty("authorization_id", pending.authorizationId);
  const { data, error: approveError } = await app.auth.oauth.approveAuthorization(pending.authorizationId, {
    skipBrowserRedirect: true,
  });
  expect(approveError).toBeNull();
  return new URL(data!.redirect_url);
}

/** The app's callback: the code (with the state checked) exchanged for tokens, the id_token checked. */
async function exchange(party: ThirdParty, pending: PendingAuthorization, callback: URL) {
  const params = oauth.validateAuthResponse(as, party.client, callback, pending.state);
  const response = await codeGrant(party, pending, params);
  const tokens = await oauth.processAuthorizationCodeResponse(as, party.client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  // oauth4webapi checks the id_token's claims; its signature, against the JWKS, only when asked.
  await oauth.validateApplicationLevelSignature(as, response, http());
  return tokens;
}

function codeGrant(party: ThirdParty, pending: PendingAuthorization, params: URLSearchParams) {
  return oauth.authorizationCodeGrantRequest(
    as,
    party.client,
    party.clientAuth,
    params,
    party.redirectUri,
    pending.verifier,
    http(),
  );
}

async function refresh(party: ThirdParty, refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(as, party.client, party.clientAuth, refreshToken, http());
  return oauth.processRefreshTokenResponse(as, party.client, response);
}

async function userInfo(party: ThirdParty, accessToken: string, subject: string) {
  const response = await oauth.userInfoRequest(as, party.client, accessToken, http());
  return oauth.processUserInfoResponse(as, party.client, subject, response);
}

/** A whole authorization: the browser sent to consent, the user approving, the code exchanged. */
async function signInThrough(party: ThirdParty, app: SupabaseClient) {
  const pending = await authorize(party);
  return exchange(party, pending, await approve(app, pending));
}

/** What a failing promise of oauth4webapi rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/**
 * How the server refused, as oauth4webapi reports it: RFC 6749's error (ResponseBodyError), RFC 6750's challenge
 * (WWWAuthenticateChallengeError), or else the answer it could not read as either.
 */
async function refusal(promise: Promise<unknown>) {
  const error = await rejection(promise);
  if (error instanceof oauth.ResponseBodyError) return { status: error.status, error: error.error };
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return { status: error.status, challenge: error.cause.map(({ scheme, parameters }) => [scheme, parameters.error]) };
  }
  // The answer it could not read (a Response of the fetch it was given, not always this realm's).
  if (error instanceof oauth.OperationProcessingError && error.code === oauth.RESPONSE_IS_NOT_CONFORM) {
    const answer = error.cause as Response;
    return { status: answer.status, notConform: await answer.json() };
  }
  throw error;
}

/**
 * A refresh token whose session ended (revoked grant, replayed code): RFC 6749 5.2's `invalid_grant`, which tells a
 * client to stop retrying and ask the user again; GoTrue maps its refresh errors so (oauthTokenError).
 */
const ENDED_GRANT = { status: 400, error: "invalid_grant" };
/**
 * An access token whose session ended, at /oauth/userinfo: GoTrue's answer (its requireAuthentication), which
 * oauth4webapi reports as an error it cannot read; RFC 6750 3.1 would be 401 with `WWW-Authenticate: Bearer
 * error="invalid_token"`.
 */
const ENDED_SESSION = {
  status: 403,
  notConform: { code: 403, error_code: "session_not_found", msg: expect.any(String) },
};

describe("discovery", () => {
  it("publishes the OpenID configuration and RFC 8414's metadata at the issuer", async () => {
    expect(as).toMatchObject({
      issuer: issuer.href.replace(/\/$/, ""),
      authorization_endpoint: new URL("oauth/authorize", issuer).href,
      token_endpoint: new URL("oauth/token", issuer).href,
      userinfo_endpoint: new URL("oauth/userinfo", issuer).href,
      registration_endpoint: new URL("oauth/clients/register", issuer).href,
      jwks_uri: new URL(".well-known/jwks.json", issuer).href,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      id_token_signing_alg_values_supported: expect.arrayContaining(["RS256"]),
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["openid", "email", "profile"]));
    expect(as.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(["client_secret_basic", "client_secret_post", "none"]),
    );

    const response = await oauth.discoveryRequest(issuer, { ...http(), algorithm: "oauth2" });
    const metadata = await oauth.processDiscoveryResponse(issuer, response);
    const { id_token_signing_alg_values_supported: _, subject_types_supported: __, ...oauthPart } = as;
    expect(metadata).toEqual(oauthPart);
  });
});

describe("the authorization code flow, with oauth4webapi as the third-party app", () => {
  it.each([
    ["a confidential app (client_secret_basic)", confidentialApp],
    ["a public MCP client (none, loopback redirect)", mcpClient],
  ])("%s: consent, tokens, id_token, userinfo, refresh; the user revokes", async (_, register) => {
    const party = await register();
    const { app, email, userId } = await signedUp();

    const pending = await authorize(party);
    const { data: details } = await app.auth.oauth.getAuthorizationDetails(pending.authorizationId);
    expect(details).toEqual({
      authorization_id: pending.authorizationId,
      redirect_uri: party.redirectUri,
      client: { id: party.client.client_id, name: party.client["client_name"] },
      user: { id: userId, email },
      scope: SCOPE,
    });
    const callback = await approve(app, pending);
    expect(`${callback.origin}${callback.pathname}`).toBe(party.redirectUri);
    expect(callback.searchParams.get("state")).toBe(pending.state);

    const tokens = await exchange(party, pending, callback);
    expect(tokens).toMatchObject({ token_type: "bearer", scope: SCOPE, refresh_token: expect.any(String) });
    const idToken = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(idToken).toMatchObject({
      iss: as.issuer,
      aud: party.client.client_id,
      sub: userId,
      nonce: pending.nonce,
      email,
      email_verified: true,
      name: expect.stringMatching(/^Person /),
    });
    const { payload: access } = await server.verifyAccessToken(tokens.access_token);
    expect(access).toMatchObject({ sub: userId, iss: as.issuer });

    expect(await userInfo(party, tokens.access_token, userId)).toMatchObject({
      sub: userId,
      email,
      email_verified: true,
      name: expect.stringMatching(/^Person /),
    });

    const refreshed = await refresh(party, tokens.refresh_token!);
    expect(refreshed).toMatchObject({ token_type: "bearer", scope: SCOPE });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await userInfo(party, refreshed.access_token, userId)).sub).toBe(userId);

    const { data: grants } = await app.auth.oauth.listGrants();
    expect(grants).toEqual([
      {
        client: { id: party.client.client_id, name: party.client["client_name"] },
        scopes: SCOPE.split(" "),
        granted_at: expect.any(String),
      },
    ]);
    expect((await app.auth.oauth.revokeGrant({ clientId: party.client.client_id })).error).toBeNull();
    expect((await app.auth.oauth.listGrants()).data).toEqual([]);

    expect(await refusal(refresh(party, refreshed.refresh_token!))).toEqual(ENDED_GRANT);
    expect(await refusal(userInfo(party, refreshed.access_token, userId))).toEqual(ENDED_SESSION);

    // Consent was revoked: the next authorization asks again.
    const again = await authorize(party);
    expect((await app.auth.oauth.getAuthorizationDetails(again.authorizationId)).data).toHaveProperty(
      "authorization_id",
    );
  });
});

describe("the user's answer", () => {
  let party: ThirdParty;
  beforeAll(async () => {
    party = await confidentialApp();
  });

  it("denied: back to the app with access_denied and the state, which oauth4webapi reports", async () => {
    const { app } = await signedUp();
    const pending = await authorize(party);
    expect((await app.auth.oauth.getAuthorizationDetails(pending.authorizationId)).error).toBeNull();
    const { data, error } = await app.auth.oauth.denyAuthorization(pending.authorizationId, {
      skipBrowserRedirect: true,
    });
    expect(error).toBeNull();
    const callback = new URL(data!.redirect_url);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe(pending.state);
    expect(callback.searchParams.has("code")).toBe(false);
    const refused = await rejection(
      Promise.resolve().then(() => oauth.validateAuthResponse(as, party.client, callback, pending.state)),
    );
    expect(refused).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect(refused).toMatchObject({ error: "access_denied" });
    // Answered: it cannot be approved after all.
    const late = await app.auth.oauth.approveAuthorization(pending.authorizationId, { skipBrowserRedirect: true });
    expect(late.error).not.toBeNull();
  });

  it("remembered: a second authorization of the same scopes skips the consent page", async () => {
    const { app, userId } = await signedUp();
    await signInThrough(party, app);
    const pending = await authorize(party, "openid email");
    const { data, error } = await app.auth.oauth.getAuthorizationDetails(pending.authorizationId);
    expect(error).toBeNull();
    expect(data).not.toHaveProperty("authorization_id");
    const callback = new URL((data as { redirect_url: string }).redirect_url);
    const tokens = await exchange(party, pending, callback);
    expect(tokens.scope).toBe("openid email");
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: userId, nonce: pending.nonce });
    expect(oauth.getValidatedIdTokenClaims(tokens)).not.toHaveProperty("name");
  });

  it("a code presented again is refused, and ends the session it was exchanged for", async () => {
    const { app } = await signedUp();
    const pending = await authorize(party);
    const callback = await approve(app, pending);
    const tokens = await exchange(party, pending, callback);
    const params = oauth.validateAuthResponse(as, party.client, callback, pending.state);
    const replay = await rejection(
      oauth.processAuthorizationCodeResponse(as, party.client, await codeGrant(party, pending, params), {
        expectedNonce: pending.nonce,
      }),
    );
    expect(replay).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await refusal(refresh(party, tokens.refresh_token!))).toEqual(ENDED_GRANT);
  });

  it("the consent page's calls: refused from another origin, and to another user", async () => {
    const { app } = await signedUp();
    const pending = await authorize(party);
    const { data } = await app.auth.getSession();
    const asked = (origin: string, token = data.session!.access_token) =>
      server.fetch(`/oauth/authorizations/${pending.authorizationId}`, {
        headers: { authorization: `Bearer ${token}`, origin },
      });
    const foreign = await asked("https://evil.example.com");
    expect([foreign.status, ((await foreign.json()) as { error_code: string }).error_code]).toEqual([
      400,
      "validation_failed",
    ]);
    expect((await asked(SITE_URL)).status).toBe(200);
    const { app: stranger } = await signedUp();
    const { error } = await stranger.auth.oauth.getAuthorizationDetails(pending.authorizationId);
    expect(error).toMatchObject({ status: 404, code: "oauth_authorization_not_found" });
  });

  it("a wrong PKCE verifier or another client's code is refused", async () => {
    const { app } = await signedUp();
    const pending = await authorize(party);
    const callback = await approve(app, pending);
    const params = oauth.validateAuthResponse(as, party.client, callback, pending.state);
    const wrongVerifier = { ...pending, verifier: oauth.generateRandomCodeVerifier() };
    const refused = await rejection(
      oauth.processAuthorizationCodeResponse(as, party.client, await codeGrant(party, wrongVerifier, params)),
    );
    expect(refused).toMatchObject({ status: 400, error: "invalid_grant" });
    const other = await mcpClient();
    const stolen = await rejection(
      oauth.processAuthorizationCodeResponse(
        as,
        other.client,
        await codeGrant({ ...other, redirectUri: party.redirectUri }, pending, params),
      ),
    );
    expect(stolen).toMatchObject({ status: 400, error: "invalid_grant" });
  });
});

describe("requests never sent back to the app", () => {
  async function authorizeAnswer(query: Record<string, string>) {
    const response = await server.fetch(`/oauth/authorize?${new URLSearchParams(query)}`, { redirect: "manual" });
    return { status: response.status, location: response.headers.get("location"), body: await response.json() };
  }

  it("an unknown client or a redirect URI it did not register: an error, no redirect", async () => {
    const party = await confidentialApp();
    const base = {
      response_type: "code",
      scope: SCOPE,
      state: "s",
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: "S256",
    };
    const unknown = await authorizeAnswer({ ...base, client_id: crypto.randomUUID(), redirect_uri: APP_CALLBACK });
    // GoTrue: 400 oauth_client_not_found (its authorize.go), as any request the server cannot send back.
    expect(unknown).toMatchObject({ status: 400, location: null, body: { error_code: "oauth_client_not_found" } });
    const elsewhere = await authorizeAnswer({
      ...base,
      client_id: party.client.client_id,
      redirect_uri: "https://attacker.example.com/callback",
    });
    expect(elsewhere).toMatchObject({ status: 400, location: null, body: { error_code: "validation_failed" } });
  });

  it("other faults go back to the registered redirect URI as RFC 6749 errors", async () => {
    const party = await confidentialApp();
    const response = await proxy(
      `${as.authorization_endpoint}?${new URLSearchParams({
        client_id: party.client.client_id,
        redirect_uri: APP_CALLBACK,
        response_type: "code",
        scope: SCOPE,
        state: "st4te",
      })}`,
      { redirect: "manual" },
    );
    expect(response.status).toBe(302);
    const callback = new URL(response.headers.get("location")!);
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({ error: "invalid_request", state: "st4te" });
  });
});

describe("the admin's clients, through supabase-js", () => {
  it("create, list, get, update, regenerate the secret, delete", async () => {
    const oauthAdmin = admin.auth.admin.oauth;
    const { data: created, error } = await oauthAdmin.createClient({
      client_name: "Made by the admin",
      client_uri: "https://made.example.com",
      redirect_uris: [APP_CALLBACK],
    });
    expect(error).toBeNull();
    expect(created).toMatchObject({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      client_type: "confidential",
      token_endpoint_auth_method: "client_secret_basic",
      registration_type: "manual",
      redirect_uris: [APP_CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    });
    const id = created!.client_id;

    const { data: listed } = await oauthAdmin.listClients();
    expect(listed.clients.map((each) => each.client_id)).toContain(id);
    expect(listed.clients.find((each) => each.client_id === id)).not.toHaveProperty("client_secret");
    const { data: got } = await oauthAdmin.getClient(id);
    expect(got).toMatchObject({ client_id: id, client_name: "Made by the admin" });
    expect(got).not.toHaveProperty("client_secret");

    const { data: updated } = await oauthAdmin.updateClient(id, {
      client_name: "Renamed",
      redirect_uris: [APP_CALLBACK, MCP_CALLBACK],
    });
    expect(updated).toMatchObject({ client_name: "Renamed", redirect_uris: [APP_CALLBACK, MCP_CALLBACK] });

    const { data: regenerated } = await oauthAdmin.regenerateClientSecret(id);
    expect(regenerated!.client_secret).toEqual(expect.any(String));
    expect(regenerated!.client_secret).not.toBe(created!.client_secret);

    expect((await oauthAdmin.deleteClient(id)).error).toBeNull();
    expect((await oauthAdmin.getClient(id)).error).toMatchObject({ status: 404, code: "oauth_client_not_found" });
    expect((await oauthAdmin.listClients()).data.clients.map((each) => each.client_id)).not.toContain(id);
  });

  it("a client_secret_post client signs users in; its old secret stops working when regenerated", async () => {
    const oauthAdmin = admin.auth.admin.oauth;
    const { data: created } = await oauthAdmin.createClient({
      client_name: "Posts its secret",
      redirect_uris: [APP_CALLBACK],
      token_endpoint_auth_method: "client_secret_post",
    });
    expect(created).toMatchObject({ client_type: "confidential", token_endpoint_auth_method: "client_secret_post" });
    const client: oauth.Client = { client_id: created!.client_id };
    const party = { client, clientAuth: oauth.ClientSecretPost(created!.client_secret!), redirectUri: APP_CALLBACK };
    const { app, userId } = await signedUp();
    const tokens = await signInThrough(party, app);
    expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: userId, aud: client.client_id });

    // Sent the way it did not register, the secret is refused.
    const basic = { ...party, clientAuth: oauth.ClientSecretBasic(created!.client_secret!) };
    expect(await rejection(refresh(basic, tokens.refresh_token!))).toMatchObject({
      status: 401,
      error: "invalid_client",
    });

    const { data: regenerated } = await oauthAdmin.regenerateClientSecret(client.client_id);
    expect(await rejection(refresh(party, tokens.refresh_token!))).toMatchObject({
      status: 401,
      error: "invalid_client",
    });
    const renewed = { ...party, clientAuth: oauth.ClientSecretPost(regenerated!.client_secret!) };
    expect((await refresh(renewed, tokens.refresh_token!)).access_token).toEqual(expect.any(String));
  });
});

describe("with the OAuth server off", () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer({ AUTH_JWT_KEYS: ring });
  });
  afterAll(async () => {
    await off?.close();
  });

  it("answers its endpoints 404 feature_disabled, and the OpenID configuration has none of them", async () => {
    for (const [method, path] of [
      ["POST", "/oauth/token"],
      ["GET", "/.well-known/oauth-authorization-server"],
      ["GET", "/oauth/authorize"],
      ["POST", "/oauth/clients/register"],
    ] as const) {
      const response = await off.fetch(path, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect([path, response.status, ((await response.json()) as { error_code?: string }).error_code]).toEqual([
        path,
        404,
        "feature_disabled",
      ]);
    }
    const configuration = (await (await off.fetch("/.well-known/openid-configuration")).json()) as object;
    expect(configuration).toHaveProperty("jwks_uri");
    for (const member of ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "registration_endpoint"]) {
      expect(configuration).not.toHaveProperty(member);
    }
  });
});
