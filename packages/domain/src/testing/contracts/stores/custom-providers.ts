import { beforeAll, describe, expect, it } from "vitest";
import { isAuthError } from "../../../errors.ts";
import type { CustomProvider } from "../../../model/custom-provider.ts";
import type { Stores } from "../../../ports/stores.ts";
import { type StoreContractHarness, t, uniqueTag, uuid } from "./support.ts";

/** An OAuth 2.0 provider named by `tag`, everything set that a column holds. */
function aCustomProvider(tag: string, overrides: Partial<CustomProvider> = {}): CustomProvider {
  return {
    id: uuid(),
    providerType: "oauth2",
    identifier: `custom:${tag}`,
    name: `Provider ${tag}`,
    clientId: `client-${tag}`,
    sealedClientSecret: `sealed-${tag}`,
    acceptableClientIds: [`ios-${tag}`, `android-${tag}`],
    scopes: ["read:user", "user:email"],
    pkceEnabled: true,
    attributeMapping: { email: "mail", nested: { name: ["given", "family"] } },
    customClaimsAllowlist: ["groups"],
    authorizationParams: { prompt: "consent" },
    enabled: true,
    emailOptional: false,
    issuer: null,
    discoveryUrl: null,
    skipNonceCheck: false,
    discovery: null,
    discoveryCachedAt: null,
    authorizationUrl: `https://${tag}.example/authorize`,
    tokenUrl: `https://${tag}.example/token`,
    userinfoUrl: `https://${tag}.example/userinfo`,
    jwksUri: null,
    createdAt: t("10:00:00.000"),
    updatedAt: t("10:00:00.000"),
    ...overrides,
  };
}

/** An OpenID Connect provider named by `tag`, with its discovery document cached; its issuer on loopback http. */
function anOidcProvider(tag: string, overrides: Partial<CustomProvider> = {}): CustomProvider {
  const issuer = `http://127.0.0.1:4000/${tag}`;
  return aCustomProvider(tag, {
    providerType: "oidc",
    scopes: ["openid", "email"],
    issuer,
    discoveryUrl: `${issuer}/discovery`,
    skipNonceCheck: true,
    discovery: {
      issuer,
      authorizationEndpoint: `${issuer}/authorize`,
      tokenEndpoint: `${issuer}/token`,
      userinfoEndpoint: null,
      jwksUri: `${issuer}/jwks`,
      scopesSupported: ["openid", "email"],
      responseTypesSupported: ["code"],
      grantTypesSupported: null,
      subjectTypesSupported: ["public"],
    },
    discoveryCachedAt: t("10:00:01.000"),
    authorizationUrl: null,
    tokenUrl: null,
    userinfoUrl: null,
    ...overrides,
  });
}

/** What a `CustomProviderStore` must do: providers by identifier, each identifier held by one only. */
export function describeCustomProvidersContract(harness: StoreContractHarness): void {
  describe("custom providers", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    it("finds a provider by its identifier, every field as written, of either type", async () => {
      const oauth2 = aCustomProvider(uniqueTag(), { emailOptional: true, jwksUri: "https://jwks.example/keys" });
      const oidc = anOidcProvider(uniqueTag());
      await stores.customProviders.insert(oauth2);
      await stores.customProviders.insert(oidc);
      expect(await stores.customProviders.findByIdentifier(oauth2.identifier)).toEqual(oauth2);
      expect(await stores.customProviders.findByIdentifier(oidc.identifier)).toEqual(oidc);
      expect(await stores.customProviders.findByIdentifier(`custom:${uniqueTag()}`)).toBeNull();
      // Identifiers are compared exactly.
      expect(await stores.customProviders.findByIdentifier(oauth2.identifier.toUpperCase())).toBeNull();
    });

    it("refuses a second provider with an identifier taken, writing nothing", async () => {
      const held = aCustomProvider(uniqueTag());
      await stores.customProviders.insert(held);
      const taker = aCustomProvider("x", { identifier: held.identifier, name: "Taker" });
      const error = await stores.customProviders.insert(taker).catch((caught: unknown) => caught);
      expect(isAuthError(error, "conflict"), String(error)).toBe(true);
      expect(await stores.customProviders.findByIdentifier(held.identifier)).toEqual(held);
    });

    it("lists newest first, by type when asked, and counts them all", async () => {
      const before = await stores.customProviders.count();
      const oldest = aCustomProvider(uniqueTag(), { createdAt: t("08:00:00.000") });
      const middle = anOidcProvider(uniqueTag(), { createdAt: t("08:30:00.000") });
      const newest = aCustomProvider(uniqueTag(), { createdAt: t("09:00:00.000") });
      for (const provider of [middle, newest, oldest]) await stores.customProviders.insert(provider);
      expect(await stores.customProviders.count()).toBe(before + 3);
      const ours = (providers: readonly CustomProvider[]) =>
        providers.map((provider) => provider.id).filter((id) => [oldest.id, middle.id, newest.id].includes(id));
      expect(ours(await stores.customProviders.list())).toEqual([newest.id, middle.id, oldest.id]);
      const oauth2 = await stores.customProviders.list({ type: "oauth2" });
      expect(ours(oauth2)).toEqual([newest.id, oldest.id]);
      expect(oauth2.every((provider) => provider.providerType === "oauth2")).toBe(true);
      const oidc = await stores.customProviders.list({ type: "oidc" });
      expect(ours(oidc)).toEqual([middle.id]);
      expect(oidc.find((provider) => provider.id === middle.id)).toEqual(middle);
    });

    it("updates every field but the id, the identifier and creation; false for no such provider", async () => {
      const provider = anOidcProvider(uniqueTag());
      await stores.customProviders.insert(provider);
      const changed: CustomProvider = {
        ...provider,
        identifier: `custom:${uniqueTag()}`,
        name: "Renamed",
        clientId: "other-client",
        sealedClientSecret: "sealed-again",
        acceptableClientIds: [],
        scopes: ["openid"],
        pkceEnabled: false,
        attributeMapping: {},
        customClaimsAllowlist: [],
        authorizationParams: {},
        enabled: false,
        emailOptional: true,
        issuer: "https://issuer.example",
        discoveryUrl: null,
        skipNonceCheck: false,
        discovery: null,
        discoveryCachedAt: null,
        createdAt: t("23:00:00.000"),
        updatedAt: t("11:00:00.000"),
      };
      expect(await stores.customProviders.update(changed)).toBe(true);
      expect(await stores.customProviders.findByIdentifier(provider.identifier)).toEqual({
        ...changed,
        identifier: provider.identifier,
        createdAt: provider.createdAt,
      });
      expect(await stores.customProviders.findByIdentifier(changed.identifier)).toBeNull();
      expect(await stores.customProviders.update(aCustomProvider(uniqueTag()))).toBe(false);
    });

    it("deletes by identifier, after which the identifier is free again", async () => {
      const provider = aCustomProvider(uniqueTag());
      await stores.customProviders.insert(provider);
      expect(await stores.customProviders.delete(provider.identifier)).toBe(true);
      expect(await stores.customProviders.findByIdentifier(provider.identifier)).toBeNull();
      expect(await stores.customProviders.delete(provider.identifier)).toBe(false);
      const successor = aCustomProvider("y", { identifier: provider.identifier });
      await stores.customProviders.insert(successor);
      expect(await stores.customProviders.findByIdentifier(provider.identifier)).toEqual(successor);
    });
  });
}
