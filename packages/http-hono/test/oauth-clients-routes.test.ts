import type { TestAuthOptions } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The test app with the OAuth server on, and a way to call as a service_role key. */
async function oauthApp(options: TestAuthOptions = {}) {
  const app = createTestApp(options);
  const exp = Math.floor(app.clock.now().getTime() / 1000) + 3600;
  const serviceKey = await app.ports.signer.sign({ role: "service_role", exp });
  const admin = (method: string, path: string, body?: unknown) =>
    app.send(method, path, body, { authorization: `Bearer ${serviceKey}` });
  return { ...app, admin };
}

const registration = {
  client_name: "Acme CLI",
  redirect_uris: ["http://127.0.0.1:8976/callback"],
  logo_uri: "https://acme.example/logo.png",
};

describe("the admin's OAuth client registry", () => {
  it("registers (201, the secret once), gets, updates, regenerates and deletes, in GoTrue's JSON", async () => {
    const { admin } = await oauthApp();
    const created = await admin("POST", "/admin/oauth/clients", registration);
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body).toEqual({
      client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      client_type: "confidential",
      redirect_uris: registration.redirect_uris,
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      client_name: "Acme CLI",
      logo_uri: registration.logo_uri,
      registration_type: "manual",
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const path = `/admin/oauth/clients/${body.client_id}`;
    const got = await json(await admin("GET", path));
    expect(got.client_secret).toBeUndefined();
    expect(got.client_id).toBe(body.client_id);

    const updated = await json(await admin("PUT", path, { client_name: "Acme CLI 2", client_type: "public" }));
    expect(updated).toMatchObject({ client_name: "Acme CLI 2", client_type: "confidential" });
    const regenerated = await json(await admin("POST", `${path}/regenerate_secret`));
    expect(regenerated.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(regenerated.client_secret).not.toBe(body.client_secret);

    const listed = await json(await admin("GET", "/admin/oauth/clients"));
    expect(listed.clients.map((client: { client_id: string }) => client.client_id)).toContain(body.client_id);
    expect((await admin("DELETE", path)).status).toBe(204);
    const gone = await admin("GET", path);
    expect([gone.status, (await json(gone)).error_code]).toEqual([404, "oauth_client_not_found"]);
    expect(await json(await admin("GET", "/admin/oauth/clients"))).toEqual({ clients: [] });
  });

  it("answers bad metadata with 400 validation_failed, and an id that is no uuid too", async () => {
    const { admin } = await oauthApp();
    const empty = await admin("POST", "/admin/oauth/clients", { client_name: "x", redirect_uris: [] });
    expect([empty.status, (await json(empty)).error_code]).toEqual([400, "validation_failed"]);
    const typed = await admin("POST", "/admin/oauth/clients", { redirect_uris: "https://a.example/cb" });
    expect(typed.status).toBe(400);
    const malformed = await admin("GET", "/admin/oauth/clients/not-a-uuid");
    expect([malformed.status, (await json(malformed)).error_code]).toEqual([400, "validation_failed"]);
  });

  it("is the admin's: a user's token is refused", async () => {
    const { send } = await oauthApp();
    const refused = await send("GET", "/admin/oauth/clients");
    expect(refused.status).toBe(401);
  });

  it("answers feature_disabled with the OAuth server off", async () => {
    const { admin, send } = await oauthApp({ policy: { oauthServer: { enabled: false } } });
    const off = await admin("POST", "/admin/oauth/clients", registration);
    expect([off.status, (await json(off)).error_code]).toEqual([404, "feature_disabled"]);
    const dynamic = await send("POST", "/oauth/clients/register", registration);
    expect([dynamic.status, (await json(dynamic)).error_code]).toEqual([404, "feature_disabled"]);
  });
});

describe("clients registering themselves (RFC 7591)", () => {
  it("registers a public client (an MCP client, PKCE only) with no secret", async () => {
    const { send } = await oauthApp();
    const response = await send("POST", "/oauth/clients/register", {
      ...registration,
      token_endpoint_auth_method: "none",
    });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({
      client_type: "public",
      registration_type: "dynamic",
      token_endpoint_auth_method: "none",
    });
    expect(body.client_secret).toBeUndefined();
  });

  it("tells a confidential client its secret never expires, as RFC 7591 requires with a secret", async () => {
    const { send } = await oauthApp();
    const body = await json(await send("POST", "/oauth/clients/register", registration));
    expect(body).toMatchObject({ client_type: "confidential", client_secret_expires_at: 0 });
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("is refused with 403 when dynamic registration is off", async () => {
    const { send } = await oauthApp({ policy: { oauthServer: { allowDynamicRegistration: false } } });
    const response = await send("POST", "/oauth/clients/register", registration);
    expect([response.status, (await json(response)).error_code]).toEqual([
      403,
      "oauth_dynamic_client_registration_disabled",
    ]);
  });
});
