import { createHash } from "node:crypto";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  basicCredentials,
  closeStandIns,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "../../../packages/adapters-oauth/test/support/stand-in.ts";
import { adminApi, client, fragmentOf, serviceRoleKey } from "../support.ts";
import { browse, SITE } from "./browser.ts";

// Providers an admin adds at run time, signed in with through supabase-js as any built-in one: an OpenID provider
// found by discovery, and a plain OAuth 2.0 one given by its endpoints, each a local stand-in.

const CLIENT_ID = "custom-client";
const CLIENT_SECRET = "custom-secret";

interface Person {
  readonly sub: string;
  readonly email: string;
  readonly verified: boolean;
  readonly name: string;
}

/**
 * An authorization server: it signs in the person `signIn` named at once, checks the client, the code and the PKCE
 * verifier at the exchange, and answers an id_token (OIDC) or a userinfo endpoint (OAuth 2.0) about them.
 */
async function startProvider(kind: "oidc" | "oauth2") {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256" };
  let current: { person: Person; idToken: string } | undefined;
  const codes = new Map<string, { person: Person; idToken: string; challenge: string | null }>();
  const tokens = new Map<string, Person>();
  const standIn: StandIn = await startStandIn({
    "GET /.well-known/openid-configuration": () => ({
      json: {
        issuer: standIn.url,
        authorization_endpoint: `${standIn.url}/authorize`,
        token_endpoint: `${standIn.url}/token`,
        jwks_uri: `${standIn.url}/jwks`,
      },
    }),
    "GET /jwks": () => ({ json: { keys: [jwk] } }),
    "GET /authorize": (request) => {
      const back = new URL(request.query.get("redirect_uri")!);
      back.searchParams.set("state", request.query.get("state") ?? "");
      const code = `code-${Math.random().toString(36).slice(2)}`;
      codes.set(code, { ...current!, challenge: request.query.get("code_challenge") });
      back.searchParams.set("code", code);
      return { status: 302, headers: { Location: back.toString() } };
    },
    "POST /token": (request: StandInRequest) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET) return { status: 401, json: {} };
      const issued = codes.get(request.form["code"] ?? "");
      codes.delete(request.form["code"] ?? "");
      const verifier = createHash("sha256")
        .update(request.form["code_verifier"] ?? "")
        .digest("base64url");
      if (!issued || issued.challenge !== verifier) return { status: 400, json: { error: "invalid_grant" } };
      const access = `at-${Math.random().toString(36).slice(2)}`;
      tokens.set(access, issued.person);
      return {
        json: { token_type: "Bearer", access_token: access, ...(kind === "oidc" ? { id_token: issued.idToken } : {}) },
      };
    },
    "GET /userinfo": (request) => {
      const who = tokens.get(request.headers.authorization?.replace(/^Bearer /, "") ?? "");
      return who
        ? { json: { id: Number(who.sub), mail: who.email, email_verified: who.verified, login: who.name } }
        : { status: 401, json: {} };
    },
  });
  /** An id_token about `person`, as the provider issues them to the app. */
  const idTokenOf = (person: Person) =>
    new SignJWT({ email: person.email, email_verified: person.verified, name: person.name })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(standIn.url)
      .setSubject(person.sub)
      .setAudience(CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
  /** Who signs in next. */
  const signIn = async (person: Person) => {
    current = { person, idToken: await idTokenOf(person) };
  };
  return { ...standIn, signIn, idTokenOf };
}

let server: TestServer;
let headers: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ AUTH_CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS: "true" });
  headers = { authorization: `Bearer ${await serviceRoleKey()}`, "content-type": "application/json" };
});
afterAll(async () => {
  await server?.close();
  await closeStandIns();
});

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}/admin/custom-providers${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
};

/** signInWithOAuth with the provider, through the browser, to the session it lands with. */
async function signInWith(identifier: string, flowType: "implicit" | "pkce" = "implicit") {
  const app = client(server, { flowType });
  const { data, error } = await app.signInWithOAuth({
    provider: identifier as never,
    options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true },
  });
  expect(error).toBeNull();
  const landed = await browse(server, data.url!);
  return { app, landed };
}

describe("custom providers", () => {
  it("an OIDC provider, found by discovery, signs people in with the id_token it issues", async () => {
    const idp = await startProvider("oidc");
    const created = await admin("POST", "", {
      provider_type: "oidc",
      identifier: "custom:corp",
      name: "Corp SSO",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      issuer: idp.url,
      scopes: ["email", "profile"],
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("client_secret");
    await idp.signIn({ sub: "grace-1", email: "grace@corp.example", verified: true, name: "Grace Hopper" });
    const { app, landed } = await signInWith("custom:corp");
    const fragment = fragmentOf(landed);
    expect(fragment).toMatchObject({ provider: "custom:corp", token_type: "bearer" });
    const { data } = await app.setSession({
      access_token: fragment["access_token"]!,
      refresh_token: fragment["refresh_token"]!,
    });
    expect(data.user).toMatchObject({
      email: "grace@corp.example",
      app_metadata: { provider: "custom:corp", providers: ["custom:corp"] },
      user_metadata: { name: "Grace Hopper", email_verified: true },
    });
    expect(data.user?.identities?.[0]).toMatchObject({ provider: "custom:corp", id: "grace-1" });
    const authorize = idp.requestsTo("GET /authorize").at(-1)!;
    expect(authorize.query.get("scope")).toBe("openid email profile");
    expect(authorize.query.get("code_challenge_method")).toBe("S256");

    // An id_token the app got from the provider itself signs in too (signInWithIdToken), once.
    const token = await idp.idTokenOf({ sub: "grace-1", email: "grace@corp.example", verified: true, name: "Grace" });
    const native = client(server);
    const signedIn = await native.signInWithIdToken({ provider: "custom:corp" as never, token });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.id).toBe(data.user?.id);
    expect((await client(server).signInWithIdToken({ provider: "custom:corp" as never, token })).error).not.toBeNull();
  });

  it("an OAuth 2.0 provider, by its endpoints and a claim mapping, signs in with PKCE; an unverified address links nothing", async () => {
    const idp = await startProvider("oauth2");
    const created = await admin("POST", "", {
      provider_type: "oauth2",
      identifier: "custom:forge",
      name: "Forge",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      authorization_url: `${idp.url}/authorize`,
      token_url: `${idp.url}/token`,
      userinfo_url: `${idp.url}/userinfo`,
      attribute_mapping: { sub: "id", email: "mail", name: "login" },
    });
    expect(created.status).toBe(201);
    await idp.signIn({ sub: "4242", email: "linus@forge.example", verified: true, name: "linus" });
    const { app, landed } = await signInWith("custom:forge", "pkce");
    const { data, error } = await app.exchangeCodeForSession(landed.searchParams.get("code")!);
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: "linus@forge.example", user_metadata: { name: "linus" } });
    expect(data.user?.identities?.[0]).toMatchObject({ provider: "custom:forge", id: "4242" });

    // Someone else at the provider claiming Linus's address, unverified: refused, and Linus's account untouched.
    await idp.signIn({ sub: "666", email: "linus@forge.example", verified: false, name: "mallory" });
    const other = await signInWith("custom:forge", "pkce");
    expect(other.landed.searchParams.get("error_code")).toBe("provider_email_needs_verification");
    expect(other.landed.searchParams.has("code")).toBe(false);
    const linus = await (await adminApi(server)).getUserById(data.user!.id);
    expect(linus.data.user?.identities?.map((identity) => identity.id)).toEqual(["4242"]);
  });

  it("stops signing in once disabled or deleted, and refuses what GoTrue refuses", async () => {
    const idp = await startProvider("oauth2");
    const body = {
      provider_type: "oauth2",
      identifier: "custom:gone",
      name: "Gone",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      authorization_url: `${idp.url}/authorize`,
      token_url: `${idp.url}/token`,
      userinfo_url: `${idp.url}/userinfo`,
    };
    expect((await admin("POST", "", body)).status).toBe(201);
    expect((await admin("POST", "", body)).body).toMatchObject({ error_code: "conflict" });
    const refusedUrl = await admin("POST", "", {
      ...body,
      identifier: "custom:private",
      token_url: "http://10.0.0.5/token",
    });
    expect(refusedUrl.body).toMatchObject({ error_code: "validation_failed" });
    expect(String(refusedUrl.body["msg"])).toContain("private network");
    const unreachable = await admin("POST", "", {
      ...body,
      provider_type: "oidc",
      identifier: "custom:nowhere",
      issuer: "http://127.0.0.1:9/realms/none",
    });
    expect(unreachable).toMatchObject({ status: 400, body: { error_code: "validation_failed" } });

    const refusal = async () => {
      const response = await fetch(`${server.url}/authorize?provider=custom:gone`, { redirect: "manual" });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect((await admin("PUT", "/custom:gone", { enabled: false })).status).toBe(200);
    expect(await refusal()).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed", msg: "Unsupported provider: custom provider custom:gone is disabled" },
    });
    expect((await admin("DELETE", "/custom:gone")).status).toBe(204);
    expect((await refusal()).body).toMatchObject({
      msg: "Unsupported provider: custom provider custom:gone not found",
    });
  });
});
