import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeStandIns, type StandIn, startStandIn } from "../../packages/adapters-oauth/test/support/stand-in.ts";
import { anonKey, serviceRoleKey } from "./support.ts";

// The admin's registry of custom OAuth/OIDC providers over HTTP, in GoTrue's shapes, with the server's own URL
// checks and discovery: an OpenID provider's discovery document served on loopback, which
// CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS lets through.

describe("/admin/custom-providers", () => {
  let server: TestServer;
  let issuer: StandIn;
  let headers: Record<string, string>;
  beforeAll(async () => {
    issuer = await startStandIn({
      "GET /.well-known/openid-configuration": () => ({
        json: {
          issuer: issuer.url,
          authorization_endpoint: `${issuer.url}/authorize`,
          token_endpoint: `${issuer.url}/token`,
          userinfo_endpoint: `${issuer.url}/userinfo`,
          jwks_uri: `${issuer.url}/jwks`,
          scopes_supported: ["openid", "email"],
        },
      }),
      "GET /elsewhere/openid": () => ({
        json: {
          issuer: issuer.url,
          authorization_endpoint: `${issuer.url}/v2/authorize`,
          token_endpoint: `${issuer.url}/v2/token`,
          jwks_uri: `${issuer.url}/v2/jwks`,
        },
      }),
    });
    server = await startTestServer({ AUTH_CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS: "true" });
    headers = { authorization: `Bearer ${await serviceRoleKey()}`, "content-type": "application/json" };
  });
  afterAll(async () => {
    await server.close();
    await closeStandIns();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/admin/custom-providers${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? null : JSON.parse(text)) as Record<string, any> };
  };

  const oauth2 = (identifier: string, extra: Record<string, unknown> = {}) => ({
    provider_type: "oauth2",
    identifier,
    name: "Acme",
    client_id: "acme-client",
    client_secret: "acme-secret",
    authorization_url: `${issuer.url}/oauth/authorize`,
    token_url: `${issuer.url}/oauth/token`,
    userinfo_url: `${issuer.url}/api/me`,
    ...extra,
  });

  it("adds an OAuth 2.0 and an OpenID provider, then reads, lists, changes and deletes them", async () => {
    const plain = await call(
      "POST",
      "",
      oauth2("custom:acme", {
        scopes: ["read:user"],
        attribute_mapping: { email: "mail" },
        authorization_params: { prompt: "consent" },
      }),
    );
    expect(plain.status).toBe(201);
    expect(plain.body).toEqual({
      id: expect.any(String),
      provider_type: "oauth2",
      identifier: "custom:acme",
      name: "Acme",
      client_id: "acme-client",
      acceptable_client_ids: [],
      scopes: ["read:user"],
      pkce_enabled: true,
      attribute_mapping: { email: "mail" },
      custom_claims_allowlist: [],
      authorization_params: { prompt: "consent" },
      enabled: true,
      email_optional: false,
      skip_nonce_check: false,
      authorization_url: `${issuer.url}/oauth/authorize`,
      token_url: `${issuer.url}/oauth/token`,
      userinfo_url: `${issuer.url}/api/me`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const oidc = await call("POST", "", {
      provider_type: "oidc",
      identifier: "custom:corp",
      name: "Corp",
      client_id: "corp-client",
      client_secret: "corp-secret",
      issuer: issuer.url,
      scopes: ["email"],
    });
    expect(oidc.status).toBe(201);
    expect(oidc.body).toMatchObject({
      provider_type: "oidc",
      issuer: issuer.url,
      scopes: ["openid", "email"],
      discovery_document: {
        issuer: issuer.url,
        authorization_endpoint: `${issuer.url}/authorize`,
        token_endpoint: `${issuer.url}/token`,
        userinfo_endpoint: `${issuer.url}/userinfo`,
        jwks_uri: `${issuer.url}/jwks`,
        scopes_supported: ["openid", "email"],
      },
    });
    expect(oidc.body["authorization_url"]).toBeUndefined();
    for (const created of [plain, oidc]) {
      expect(JSON.stringify(created.body)).not.toContain("secret");
    }

    // The client secret is kept sealed.
    const [row] = await server.db.db
      .select()
      .from(server.db.schema.customProviders)
      .where(eq(server.db.schema.customProviders.identifier, "custom:acme"));
    expect(row?.clientSecret).toBeTruthy();
    expect(row?.clientSecret).not.toContain("acme-secret");

    // By its identifier, as is or percent-encoded.
    expect(await call("GET", "/custom:acme")).toEqual({ status: 200, body: plain.body });
    expect((await call("GET", "/custom%3Acorp")).body).toEqual(oidc.body);

    const all = await call("GET", "");
    expect(all.status).toBe(200);
    expect(all.body["providers"].map((p: { identifier: string }) => p.identifier)).toEqual([
      "custom:corp",
      "custom:acme",
    ]);
    expect((await call("GET", "?type=oidc")).body["providers"]).toEqual([oidc.body]);
    expect((await call("GET", "?type=oauth2")).body["providers"]).toEqual([plain.body]);

    const renamed = await call("PUT", "/custom:acme", { name: "Acme Inc", enabled: false, client_secret: "rotated" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      ...plain.body,
      name: "Acme Inc",
      enabled: false,
      updated_at: expect.any(String),
    });
    const moved = await call("PUT", "/custom:corp", { discovery_url: `${issuer.url}/elsewhere/openid` });
    expect(moved.body).toMatchObject({
      discovery_url: `${issuer.url}/elsewhere/openid`,
      discovery_document: { authorization_endpoint: `${issuer.url}/v2/authorize` },
    });
    expect(moved.body["discovery_document"].userinfo_endpoint).toBeUndefined();

    const deleted = await call("DELETE", "/custom:acme");
    expect(deleted).toEqual({ status: 204, body: null });
    expect(await call("GET", "/custom:acme")).toMatchObject({
      status: 404,
      body: { error_code: "custom_provider_not_found", msg: "Custom OAuth provider not found" },
    });
    expect(await call("DELETE", "/custom:acme")).toMatchObject({ status: 404 });
    expect((await call("DELETE", "/custom:corp")).status).toBe(204);
    expect((await call("GET", "")).body).toEqual({ providers: [] });
  });

  it("refuses bad providers with GoTrue's codes and messages, and keeps none of them", async () => {
    const held = await call("POST", "", oauth2("custom:held"));
    expect(held.status).toBe(201);
    const refused = async (body: unknown, status: number, code: string, message: string) => {
      expect(await call("POST", "", body)).toMatchObject({
        status,
        body: { code: status, error_code: code, msg: message },
      });
    };
    await refused(
      oauth2("custom:held"),
      400,
      "conflict",
      "A custom OAuth provider with this identifier already exists",
    );
    await refused(
      oauth2("held"),
      400,
      "validation_failed",
      "identifier must start with 'custom:' prefix, e.g. 'custom:held'",
    );
    await refused(
      { ...oauth2("custom:x"), provider_type: "saml" },
      400,
      "validation_failed",
      "provider_type must be either 'oauth2' or 'oidc'",
    );
    await refused(
      oauth2("custom:x", { token_url: "" }),
      400,
      "validation_failed",
      "token_url is required for OAuth2 providers",
    );
    await refused(
      oauth2("custom:x", { token_url: "ftp://files.example/token" }),
      400,
      "validation_failed",
      "URL must use HTTPS",
    );
    await refused(oauth2("custom:x", { token_url: "not a url" }), 400, "validation_failed", "Invalid URL format");
    await refused(
      oauth2("custom:x", { userinfo_url: "https://10.0.0.8/me" }),
      400,
      "validation_failed",
      "URL cannot resolve to private network addresses",
    );
    await refused(
      oauth2("custom:x", { authorization_url: "http://169.254.169.254/latest" }),
      400,
      "validation_failed",
      "URL cannot resolve to link-local addresses",
    );
    await refused(
      oauth2("custom:x", { authorization_params: { state: "fixed" } }),
      400,
      "validation_failed",
      "Cannot override reserved OAuth parameter: state",
    );
    await refused(
      oauth2("custom:x", { attribute_mapping: { role: "groups" } }),
      400,
      "validation_failed",
      "Cannot map to protected system field: role",
    );
    const unreachable = await call("POST", "", {
      provider_type: "oidc",
      identifier: "custom:gone",
      name: "Gone",
      client_id: "c",
      client_secret: "s",
      issuer: `${issuer.url}/nobody`,
    });
    expect(unreachable).toMatchObject({ status: 400, body: { error_code: "validation_failed" } });
    expect(unreachable.body["msg"]).toContain(
      `OIDC discovery from "${issuer.url}/nobody/.well-known/openid-configuration" failed`,
    );

    expect(await call("GET", "?type=saml")).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed", msg: "type must be either 'oauth2' or 'oidc'" },
    });
    expect(await call("PUT", "/held", { name: "x" })).toMatchObject({
      status: 400,
      body: { msg: "identifier must start with 'custom:' prefix, e.g. 'custom:held'" },
    });
    expect(await call("PUT", "/custom:held", { token_url: "http://10.1.1.1/token" })).toMatchObject({
      status: 400,
      body: { msg: "URL cannot resolve to private network addresses" },
    });
    expect((await call("GET", "")).body["providers"].map((p: { identifier: string }) => p.identifier)).toEqual([
      "custom:held",
    ]);
    expect((await call("GET", "/custom:held")).body).toEqual(held.body);
    await call("DELETE", "/custom:held");
  });

  it("answers only the admin", async () => {
    const response = await fetch(`${server.url}/admin/custom-providers`, {
      headers: { authorization: `Bearer ${await anonKey()}` },
    });
    expect(response.status).toBe(403);
    // Another method is no endpoint.
    expect((await call("PATCH", "/custom:acme", {})).status).toBe(404);
  });
});

describe("/admin/custom-providers switched off", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_CUSTOM_OAUTH_ENABLED: "false" });
  });
  afterAll(() => server.close());

  it("answers every method as GoTrue does, once the caller is an admin", async () => {
    const headers = { authorization: `Bearer ${await serviceRoleKey()}`, "content-type": "application/json" };
    for (const [method, path] of [
      ["GET", ""],
      ["POST", ""],
      ["GET", "/custom:acme"],
      ["PUT", "/custom:acme"],
      ["DELETE", "/custom:acme"],
      ["PATCH", "/custom:acme"],
    ] as const) {
      const response = await fetch(`${server.url}/admin/custom-providers${path}`, {
        method,
        headers,
        body: method === "GET" || method === "DELETE" ? undefined : "{}",
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toMatchObject({
        error_code: "feature_disabled",
        msg: "Custom OAuth providers are disabled",
      });
    }
    const anonymous = await fetch(`${server.url}/admin/custom-providers`);
    expect(anonymous.status).toBe(401);
  });
});
