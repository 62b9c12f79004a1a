import { describe, expect, it } from "vitest";
import { createTestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";

const redirectUris = ["https://app.example.com/callback"];

function server(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  return { ...testAuth, oauth: testAuth.auth.oauthServer };
}

describe("registering OAuth clients", () => {
  it("makes a confidential client by default, with a secret shown once and stored as its SHA-256", async () => {
    const { oauth, ports } = server();
    const { client, secret } = await oauth.registerClient({ metadata: { redirectUris, clientName: "Acme" } });
    expect(client).toMatchObject({
      registrationType: "manual",
      clientType: "confidential",
      tokenEndpointAuthMethod: "client_secret_basic",
      grantTypes: ["authorization_code", "refresh_token"],
      redirectUris,
      name: "Acme",
      uri: null,
    });
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client.secretDigest).toBe(ports.secrets.sha256(secret!));
    expect(await oauth.getClient({ clientId: client.id })).toEqual(client);
  });

  it("settles the type from the method, or the method from the type, and refuses them at odds", async () => {
    const { oauth } = server();
    const pub = await oauth.registerClient({ metadata: { redirectUris, tokenEndpointAuthMethod: "none" } });
    expect(pub.client).toMatchObject({ clientType: "public", tokenEndpointAuthMethod: "none", secretDigest: null });
    expect(pub.secret).toBeNull();
    const post = await oauth.registerClient({
      metadata: { redirectUris, tokenEndpointAuthMethod: "client_secret_post" },
    });
    expect(post.client.clientType).toBe("confidential");
    const typed = await oauth.registerClient({ metadata: { redirectUris, clientType: "public" } });
    expect(typed.client.tokenEndpointAuthMethod).toBe("none");
    const odds = await failsWith(
      "validation_failed",
      oauth.registerClient({
        metadata: { redirectUris, clientType: "public", tokenEndpointAuthMethod: "client_secret_basic" },
      }),
    );
    expect(odds.message).toContain("inconsistent");
  });

  it.each([
    [[], "redirect_uris is required"],
    [["http://app.example.com/cb"], "HTTP scheme only allowed for localhost"],
    [["https://app.example.com/cb#frag"], "fragment not allowed"],
    [["javascript://x/alert(1)"], "not allowed for security reasons"],
    [["not a url"], "invalid URL format"],
    [Array.from({ length: 11 }, (_, i) => `https://app.example.com/${i}`), "cannot exceed 10"],
  ])("refuses redirect URIs %j", async (uris, words) => {
    const { oauth } = server();
    const error = await failsWith("validation_failed", oauth.registerClient({ metadata: { redirectUris: uris } }));
    expect(error.message).toContain(words);
  });

  it("takes loopback http and native app schemes, as OAuth 2.1 and MCP clients use them", async () => {
    const { oauth } = server();
    const uris = [
      "http://127.0.0.1:8976/callback",
      "http://localhost/cb",
      "http://[::1]:3000/cb",
      "com.example.app://auth",
    ];
    const { client } = await oauth.registerClient({ metadata: { redirectUris: uris } });
    expect(client.redirectUris).toEqual(uris);
  });

  it("refuses unknown grant types, methods and types, and over-long names", async () => {
    const { oauth } = server();
    const refused = (metadata: object) =>
      failsWith("validation_failed", oauth.registerClient({ metadata: { redirectUris, ...metadata } }));
    await refused({ grantTypes: ["implicit"] });
    await refused({ grantTypes: [] });
    await refused({ tokenEndpointAuthMethod: "private_key_jwt" });
    await refused({ clientType: "trusted" });
    await refused({ clientName: "x".repeat(1025) });
    await refused({ logoUri: "not a url" });
  });

  it("lets clients register themselves only when allowed, within the rate limit", async () => {
    const { oauth } = server({
      policy: { requestLimits: { oauthClientRegistrations: { events: 1, perSeconds: 300 } } },
    });
    const { client } = await oauth.registerClientDynamically({ metadata: { redirectUris }, context });
    expect(client.registrationType).toBe("dynamic");
    await failsWith(
      "over_request_rate_limit",
      oauth.registerClientDynamically({ metadata: { redirectUris }, context }),
    );
    const closed = server({ policy: { oauthServer: { allowDynamicRegistration: false } } });
    await failsWith(
      "oauth_dynamic_client_registration_disabled",
      closed.oauth.registerClientDynamically({ metadata: { redirectUris }, context }),
    );
  });

  it("is off with the server", async () => {
    const { oauth } = server({ policy: { oauthServer: { enabled: false } } });
    await failsWith("feature_disabled", oauth.registerClient({ metadata: { redirectUris } }));
    await failsWith("feature_disabled", oauth.listClients());
  });
});

describe("managing OAuth clients", () => {
  it("updates the fields given, checked as at registration, and never a public client's method to a secret", async () => {
    const { oauth, clock } = server();
    const { client } = await oauth.registerClient({
      metadata: { redirectUris, clientName: "Acme", clientType: "public" },
    });
    clock.advance({ seconds: 5 });
    const updated = await oauth.updateClient({
      clientId: client.id,
      update: { redirectUris: ["https://new.example.com/cb"], clientName: "" },
    });
    expect(updated).toMatchObject({ redirectUris: ["https://new.example.com/cb"], name: null, logoUri: null });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(client.updatedAt.getTime());
    await failsWith("validation_failed", oauth.updateClient({ clientId: client.id, update: {} }));
    await failsWith(
      "validation_failed",
      oauth.updateClient({ clientId: client.id, update: { tokenEndpointAuthMethod: "client_secret_basic" } }),
    );
    await failsWith("validation_failed", oauth.updateClient({ clientId: client.id, update: { redirectUris: [] } }));
  });

  it("regenerates a confidential client's secret (the old one ends), never a public one's", async () => {
    const { oauth, ports } = server();
    const first = await oauth.registerClient({ metadata: { redirectUris } });
    const again = await oauth.regenerateClientSecret({ clientId: first.client.id });
    expect(again.secret).not.toBe(first.secret);
    expect(again.client.secretDigest).toBe(ports.secrets.sha256(again.secret!));
    const pub = await oauth.registerClient({ metadata: { redirectUris, clientType: "public" } });
    await failsWith("validation_failed", oauth.regenerateClientSecret({ clientId: pub.client.id }));
  });

  it("lists clients newest first, and deletes them softly: gone from the list and from every lookup", async () => {
    const { oauth, clock } = server();
    const older = await oauth.registerClient({ metadata: { redirectUris } });
    clock.advance({ seconds: 1 });
    const newer = await oauth.registerClient({ metadata: { redirectUris } });
    expect((await oauth.listClients()).map((each) => each.id)).toEqual([newer.client.id, older.client.id]);
    await oauth.deleteClient({ clientId: older.client.id });
    expect((await oauth.listClients()).map((each) => each.id)).toEqual([newer.client.id]);
    await failsWith("oauth_client_not_found", oauth.getClient({ clientId: older.client.id }));
    await failsWith("oauth_client_not_found", oauth.deleteClient({ clientId: older.client.id }));
    await failsWith("validation_failed", oauth.getClient({ clientId: "not-a-uuid" }));
  });
});
