import { describe, expect, it } from "vitest";
import type { AuthPolicy } from "../../policy.ts";
import type { Ports } from "../../ports/index.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeCustomProviderRuntime, oidcDiscovery } from "../../testing/fake-custom-provider-runtime.ts";
import type { DeepPartial } from "../../testing/test-policy.ts";
import type { CustomProviderInput } from "./admin.ts";

const admin = { role: "service_role", userId: null, claims: {} };

function setUp(options: { policy?: DeepPartial<AuthPolicy>; ports?: Partial<Ports> } = {}) {
  const runtime = new FakeCustomProviderRuntime();
  const testAuth = createTestAuth({
    policy: options.policy ?? {},
    ports: { customProviders: runtime, ...options.ports },
  });
  const providers = testAuth.auth.customProviders;
  return {
    ...testAuth,
    runtime,
    providers,
    create: (provider: CustomProviderInput) => providers.create({ admin, context, provider }),
    update: (identifier: string, update: CustomProviderInput) =>
      providers.update({ admin, context, identifier, update }),
    remove: (identifier: string) => providers.delete({ admin, context, identifier }),
  };
}

const oauth2 = (overrides: CustomProviderInput = {}): CustomProviderInput => ({
  providerType: "oauth2",
  identifier: "custom:acme",
  name: "Acme",
  clientId: "acme-client",
  clientSecret: "acme-secret",
  authorizationUrl: "https://acme.example/oauth/authorize",
  tokenUrl: "https://acme.example/oauth/token",
  userinfoUrl: "https://acme.example/api/me",
  ...overrides,
});

const ISSUER = "https://login.corp.example";
const oidc = (overrides: CustomProviderInput = {}): CustomProviderInput => ({
  providerType: "oidc",
  identifier: "custom:corp",
  name: "Corp",
  clientId: "corp-client",
  clientSecret: "corp-secret",
  issuer: ISSUER,
  ...overrides,
});

describe("an admin's custom OAuth/OIDC providers", () => {
  it("adds an OAuth 2.0 provider with GoTrue's defaults, its client secret sealed", async () => {
    const { create, providers, ports, clock } = setUp();
    const provider = await create(oauth2({ scopes: ["read:user"] }));
    expect(provider).toMatchObject({
      providerType: "oauth2",
      identifier: "custom:acme",
      name: "Acme",
      clientId: "acme-client",
      acceptableClientIds: [],
      scopes: ["read:user"],
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
      authorizationUrl: "https://acme.example/oauth/authorize",
      tokenUrl: "https://acme.example/oauth/token",
      userinfoUrl: "https://acme.example/api/me",
      jwksUri: null,
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    expect(provider.sealedClientSecret).not.toContain("acme-secret");
    expect(ports.secrets.open(provider.sealedClientSecret)).toBe("acme-secret");
    expect(await providers.get({ identifier: "custom:acme" })).toEqual(provider);
  });

  it("adds an OIDC provider: openid added to its scopes, its discovery document fetched and kept", async () => {
    const { create, runtime, clock } = setUp();
    const document = runtime.serve(ISSUER);
    const provider = await create(oidc({ scopes: ["email"], pkceEnabled: false, skipNonceCheck: true }));
    expect(provider).toMatchObject({
      providerType: "oidc",
      scopes: ["openid", "email"],
      pkceEnabled: false,
      issuer: ISSUER,
      discoveryUrl: null,
      skipNonceCheck: true,
      discovery: document,
      discoveryCachedAt: clock.now(),
      authorizationUrl: null,
      tokenUrl: null,
      userinfoUrl: null,
    });
    expect(runtime.discovered).toEqual([{ url: `${ISSUER}/.well-known/openid-configuration`, expectedIssuer: ISSUER }]);
    // openid is not added twice.
    const again = await create(oidc({ identifier: "custom:corp-2", scopes: ["profile", "openid"] }));
    expect(again.scopes).toEqual(["profile", "openid"]);
  });

  it("fetches the discovery document from the discovery_url given, and refuses an issuer that does not answer", async () => {
    const { create, runtime, providers } = setUp();
    runtime.serve(`${ISSUER}/`, { url: "https://meta.corp.example/openid" });
    const provider = await create(oidc({ issuer: `${ISSUER}/`, discoveryUrl: "https://meta.corp.example/openid" }));
    expect(provider.discoveryUrl).toBe("https://meta.corp.example/openid");
    expect(runtime.discovered.at(-1)?.url).toBe("https://meta.corp.example/openid");

    const unreachable = create(oidc({ identifier: "custom:gone", issuer: "https://gone.example" }));
    expect((await failsWith("validation_failed", unreachable)).message).toBe(
      'OIDC discovery from "https://gone.example/.well-known/openid-configuration" failed: unexpected status code 404',
    );
    // A trailing slash of the issuer is not doubled in its well-known URL.
    runtime.serve("https://slash.example/");
    await create(oidc({ identifier: "custom:slash", issuer: "https://slash.example/" }));
    expect(runtime.discovered.at(-1)?.url).toBe("https://slash.example/.well-known/openid-configuration");
    await failsWith("custom_provider_not_found", providers.get({ identifier: "custom:gone" }));
  });

  it("refuses a discovery document without what OpenID Connect Discovery requires", async () => {
    const { create, runtime } = setUp();
    runtime.serve(ISSUER, { document: oidcDiscovery(ISSUER, { tokenEndpoint: "", jwksUri: "" }) });
    expect((await failsWith("validation_failed", create(oidc()))).message).toBe(
      "OIDC discovery document is missing required fields: token_endpoint, jwks_uri",
    );
  });

  it("refuses what GoTrue refuses, with its messages, in its order, writing nothing", async () => {
    const { create, providers } = setUp();
    const refusals: [CustomProviderInput, string][] = [
      [{ ...oauth2(), providerType: undefined }, "provider_type must be either 'oauth2' or 'oidc'"],
      [oauth2({ providerType: "saml" }), "provider_type must be either 'oauth2' or 'oidc'"],
      [oauth2({ identifier: "" }), "identifier is required"],
      [oauth2({ identifier: "acme" }), "identifier must start with 'custom:' prefix, e.g. 'custom:acme'"],
      [
        oauth2({ identifier: "custom:Acme" }),
        "identifier must be at most 50 characters of lowercase letters, digits, ':' and '-', ending with a letter or digit",
      ],
      [
        oauth2({ identifier: "custom:acme-" }),
        "identifier must be at most 50 characters of lowercase letters, digits, ':' and '-', ending with a letter or digit",
      ],
      [
        oauth2({ identifier: `custom:${"a".repeat(44)}` }),
        "identifier must be at most 50 characters of lowercase letters, digits, ':' and '-', ending with a letter or digit",
      ],
      [oauth2({ name: "" }), "name is required"],
      [oauth2({ clientId: undefined }), "client_id is required"],
      [oauth2({ clientSecret: "" }), "client_secret is required"],
      [oidc({ issuer: undefined }), "issuer is required for OIDC providers"],
      [oauth2({ authorizationUrl: "" }), "authorization_url is required for OAuth2 providers"],
      [oauth2({ tokenUrl: undefined }), "token_url is required for OAuth2 providers"],
      [oauth2({ userinfoUrl: "" }), "userinfo_url is required for OAuth2 providers"],
      [
        oauth2({ authorizationParams: { redirect_uri: "x" } }),
        "Cannot override reserved OAuth parameter: redirect_uri",
      ],
      [oauth2({ authorizationParams: { nonce: "fixed" } }), "Cannot override reserved OAuth parameter: nonce"],
      [oauth2({ authorizationParams: { prompt: 1 } }), 'Authorization parameter "prompt" must be a string'],
      [oauth2({ attributeMapping: { role: "groups" } }), "Cannot map to protected system field: role"],
      [oauth2({ attributeMapping: { app_metadata: "x" } }), "Cannot map to protected system field: app_metadata"],
      [oauth2({ customClaimsAllowlist: ["groups", " "] }), "custom_claims_allowlist entries must be non-empty strings"],
      [oauth2({ name: "n".repeat(101) }), "name must be at most 100 characters"],
      [oauth2({ clientId: "c".repeat(513) }), "client_id must be at most 512 characters"],
      [oauth2({ tokenUrl: `https://acme.example/${"t".repeat(2048)}` }), "token_url must be at most 2048 characters"],
      [oauth2({ authorizationUrl: "http://acme.example/authorize" }), "URL must use HTTPS"],
      [oauth2({ tokenUrl: "https://localhost/token" }), "URL cannot point to localhost or loopback addresses"],
      [oauth2({ userinfoUrl: "https://10.0.0.7/me" }), "URL cannot resolve to private network addresses"],
      [oauth2({ jwksUri: "not a url" }), "Invalid URL format"],
      [oidc({ issuer: "http://login.corp.example" }), "URL must use HTTPS"],
      [oidc({ discoveryUrl: "https://192.168.1.1/openid" }), "URL cannot resolve to private network addresses"],
    ];
    for (const [input, message] of refusals) {
      expect((await failsWith("validation_failed", create(input))).message, message).toBe(message);
    }
    expect(await providers.list({})).toEqual([]);
  });

  it("checks every URL through the runtime, and takes only those of the provider's type", async () => {
    const { create, runtime } = setUp();
    runtime.serve(ISSUER);
    const provider = await create(
      oidc({ authorizationUrl: "https://ignored.example/a", jwksUri: "https://ignored.example/jwks" }),
    );
    expect(provider).toMatchObject({ authorizationUrl: null, jwksUri: null });
    expect(runtime.checkedUrls).toContain(ISSUER);
    expect(runtime.checkedUrls).not.toContain("https://ignored.example/a");

    const withJwks = await create(oauth2({ jwksUri: "https://acme.example/jwks", issuer: "https://ignored.example" }));
    expect(withJwks).toMatchObject({ jwksUri: "https://acme.example/jwks", issuer: null });
    expect(runtime.checkedUrls).toEqual(
      expect.arrayContaining([
        "https://acme.example/oauth/authorize",
        "https://acme.example/oauth/token",
        "https://acme.example/api/me",
        "https://acme.example/jwks",
      ]),
    );
  });

  it("lets http and loopback URLs through when the runtime allows them", async () => {
    const runtime = new FakeCustomProviderRuntime({ allowLoopback: true });
    const { create } = setUp({ ports: { customProviders: runtime } });
    runtime.serve("http://127.0.0.1:4010");
    const provider = await create(oidc({ issuer: "http://127.0.0.1:4010" }));
    expect(provider.discovery?.issuer).toBe("http://127.0.0.1:4010");
    await failsWith("validation_failed", create(oauth2({ tokenUrl: "https://10.1.2.3/token" })));
  });

  it("refuses an identifier taken", async () => {
    const { create } = setUp();
    await create(oauth2());
    const taken = await failsWith("conflict", create(oauth2({ name: "Another" })));
    expect(taken.message).toBe("A custom OAuth provider with this identifier already exists");
  });

  it("refuses more providers than CUSTOM_OAUTH_MAX_PROVIDERS, before looking at the URLs", async () => {
    const { create, remove } = setUp({ policy: { customProviders: { maxProviders: 2 } } });
    await create(oauth2({ identifier: "custom:one" }));
    await create(oauth2({ identifier: "custom:two" }));
    const over = await failsWith(
      "over_custom_provider_quota",
      create(oauth2({ identifier: "custom:three", tokenUrl: "http://bad.example" })),
    );
    expect(over.message).toBe("Maximum number of custom OAuth/OIDC providers reached");
    await remove("custom:one");
    await create(oauth2({ identifier: "custom:three" }));
  });

  it("lists newest first, by type when asked, and refuses another type", async () => {
    const { create, providers, runtime, clock } = setUp();
    runtime.serve(ISSUER);
    const first = await create(oauth2({ identifier: "custom:first" }));
    clock.advance({ seconds: 1 });
    const second = await create(oidc());
    clock.advance({ seconds: 1 });
    const third = await create(oauth2({ identifier: "custom:third" }));
    const ids = (list: readonly { id: string }[]) => list.map((provider) => provider.id);
    expect(ids(await providers.list({}))).toEqual([third.id, second.id, first.id]);
    expect(ids(await providers.list({ type: "" }))).toEqual([third.id, second.id, first.id]);
    expect(ids(await providers.list({ type: "oauth2" }))).toEqual([third.id, first.id]);
    expect(ids(await providers.list({ type: "oidc" }))).toEqual([second.id]);
    const refused = await failsWith("validation_failed", providers.list({ type: "saml" }));
    expect(refused.message).toBe("type must be either 'oauth2' or 'oidc'");
  });

  it("finds a provider by its identifier, which must carry the prefix", async () => {
    const { create, providers } = setUp();
    await create(oauth2());
    const unprefixed = await failsWith("validation_failed", providers.get({ identifier: "acme" }));
    expect(unprefixed.message).toBe("identifier must start with 'custom:' prefix, e.g. 'custom:acme'");
    expect((await failsWith("validation_failed", providers.get({ identifier: "" }))).message).toBe(
      "identifier is required",
    );
    const missing = await failsWith("custom_provider_not_found", providers.get({ identifier: "custom:other" }));
    expect(missing.message).toBe("Custom OAuth provider not found");
  });

  it("updates what is given, keeping the rest, the type and the identifier; a new secret only when given", async () => {
    const { create, update, providers, ports, clock } = setUp();
    const created = await create(oauth2({ scopes: ["a"], attributeMapping: { name: "login" } }));
    clock.advance({ minutes: 1 });
    const updated = await update("custom:acme", {
      providerType: "oidc",
      identifier: "custom:renamed",
      name: "Acme Inc",
      clientId: "",
      scopes: ["b", "c"],
      pkceEnabled: false,
      enabled: false,
      emailOptional: true,
      authorizationParams: { prompt: "consent" },
      tokenUrl: "https://acme.example/v2/token",
      issuer: "https://ignored.example",
    });
    expect(updated).toEqual({
      ...created,
      name: "Acme Inc",
      scopes: ["b", "c"],
      pkceEnabled: false,
      enabled: false,
      emailOptional: true,
      authorizationParams: { prompt: "consent" },
      tokenUrl: "https://acme.example/v2/token",
      updatedAt: clock.now(),
    });
    expect(await providers.get({ identifier: "custom:acme" })).toEqual(updated);

    const resealed = await update("custom:acme", { clientSecret: "new-secret", acceptableClientIds: ["ios"] });
    expect(ports.secrets.open(resealed.sealedClientSecret)).toBe("new-secret");
    expect(resealed.acceptableClientIds).toEqual(["ios"]);
    const cleared = await update("custom:acme", { attributeMapping: {}, customClaimsAllowlist: [] });
    expect(cleared).toMatchObject({ attributeMapping: {}, customClaimsAllowlist: [] });
    expect(ports.secrets.open(cleared.sealedClientSecret)).toBe("new-secret");
  });

  it("refuses a bad update with GoTrue's messages, changing nothing", async () => {
    const { create, update, providers } = setUp();
    const created = await create(oauth2());
    const refusals: [CustomProviderInput, string][] = [
      [{ authorizationParams: { state: "x" } }, "Cannot override reserved OAuth parameter: state"],
      [{ attributeMapping: { email_verified: "v" } }, "Cannot map to protected system field: email_verified"],
      [{ customClaimsAllowlist: [""] }, "custom_claims_allowlist entries must be non-empty strings"],
      [{ userinfoUrl: "http://acme.example/me" }, "URL must use HTTPS"],
      [{ jwksUri: "https://127.0.0.1/jwks" }, "URL cannot point to localhost or loopback addresses"],
      [{ name: "n".repeat(101) }, "name must be at most 100 characters"],
    ];
    for (const [input, message] of refusals) {
      expect((await failsWith("validation_failed", update("custom:acme", input))).message, message).toBe(message);
    }
    expect((await failsWith("validation_failed", update("acme", { name: "x" }))).message).toBe(
      "identifier must start with 'custom:' prefix, e.g. 'custom:acme'",
    );
    await failsWith("custom_provider_not_found", update("custom:other", { name: "x" }));
    expect(await providers.get({ identifier: "custom:acme" })).toEqual(created);
  });

  it("fetches an OIDC provider's discovery again when its issuer or discovery URL is given", async () => {
    const { create, update, providers, runtime, clock } = setUp();
    runtime.serve(ISSUER);
    const created = await create(oidc({ scopes: ["email"] }));
    clock.advance({ seconds: 1 });
    const renamed = await update("custom:corp", { name: "Corp 2", scopes: ["profile"] });
    expect(renamed.scopes).toEqual(["openid", "profile"]);
    expect(renamed.discoveryCachedAt).toEqual(created.discoveryCachedAt);
    expect(runtime.discovered).toHaveLength(1);

    const moved = "https://login2.corp.example";
    const document = runtime.serve(moved);
    clock.advance({ seconds: 1 });
    const rehomed = await update("custom:corp", { issuer: moved });
    expect(rehomed).toMatchObject({ issuer: moved, discovery: document, discoveryCachedAt: clock.now() });
    expect(runtime.discovered.at(-1)).toEqual({
      url: `${moved}/.well-known/openid-configuration`,
      expectedIssuer: moved,
    });

    // A discovery_url given, even empty, fetches again; one that does not answer changes nothing.
    await update("custom:corp", { discoveryUrl: "" });
    expect(runtime.discovered).toHaveLength(3);
    await failsWith("validation_failed", update("custom:corp", { discoveryUrl: "https://nothing.example/openid" }));
    expect(await providers.get({ identifier: "custom:corp" })).toMatchObject({ issuer: moved, discoveryUrl: null });
  });

  it("deletes a provider, after which its identifier is free", async () => {
    const { create, remove, providers } = setUp();
    const created = await create(oauth2());
    expect(await remove("custom:acme")).toEqual(created);
    await failsWith("custom_provider_not_found", providers.get({ identifier: "custom:acme" }));
    await failsWith("custom_provider_not_found", remove("custom:acme"));
    expect((await failsWith("validation_failed", remove("acme"))).message).toBe(
      "identifier must start with 'custom:' prefix, e.g. 'custom:acme'",
    );
    await create(oauth2());
  });

  it("records who added, changed and removed which provider", async () => {
    const { create, update, remove, stores } = setUp();
    const created = await create(oauth2());
    await update("custom:acme", { name: "Renamed" });
    await remove("custom:acme");
    const { entries } = await stores.auditLog.list({ page: 1, perPage: 10 });
    expect(entries.map((entry) => entry.action)).toEqual([
      "custom_provider_deleted",
      "custom_provider_updated",
      "custom_provider_created",
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actorId: "00000000-0000-0000-0000-000000000000",
        actorUsername: "service_role",
        ipAddress: context.ip,
        userAgent: context.userAgent,
        traits: { provider_id: created.id, provider_identifier: "custom:acme", provider_type: "oauth2" },
      });
    }
  });

  it("answers as GoTrue does while custom providers are switched off", async () => {
    for (const off of [
      setUp({ policy: { customProviders: { enabled: false } } }),
      setUp({ ports: { customProviders: null } }),
    ]) {
      const attempts = [
        off.providers.list({}),
        off.providers.get({ identifier: "custom:acme" }),
        off.create(oauth2()),
        off.update("custom:acme", { name: "x" }),
        off.remove("custom:acme"),
      ];
      for (const attempt of attempts) {
        expect((await failsWith("feature_disabled", attempt)).message).toBe("Custom OAuth providers are disabled");
      }
    }
  });
});
