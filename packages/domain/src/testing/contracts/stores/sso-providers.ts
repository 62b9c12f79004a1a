import { beforeAll, describe, expect, it } from "vitest";
import { isAuthError } from "../../../errors.ts";
import type { SsoProvider } from "../../../model/sso-provider.ts";
import type { Stores } from "../../../ports/stores.ts";
import { anSsoProvider, idsOf, type StoreContractHarness, t, uniqueTag, uuid } from "./support.ts";

/** What a `SsoProviderStore` must do: providers with their domains, each EntityID and domain held by one only. */
export function describeSsoProvidersContract(harness: StoreContractHarness): void {
  describe("SSO providers", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    const refused = async (write: Promise<unknown>, code: string) => {
      const error = await write.catch((caught: unknown) => caught);
      expect(isAuthError(error, code as never), String(error)).toBe(true);
    };

    it("finds a provider by its id, resource id, any case of a domain, and EntityID, domains lowercased", async () => {
      const tag = uniqueTag();
      const provider = anSsoProvider(tag, {
        resourceId: `acme-${tag}`,
        disabled: false,
        domains: [`B.${tag}.example`, `a.${tag}.example`],
        saml: {
          ...anSsoProvider(tag).saml,
          metadataUrl: "https://idp.example/metadata",
          nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
        },
      });
      await stores.ssoProviders.insert(provider);
      const expected = { ...provider, domains: [`a.${tag}.example`, `b.${tag}.example`] };
      expect(await stores.ssoProviders.find(provider.id)).toEqual(expected);
      expect(await stores.ssoProviders.findByResourceId(`acme-${tag}`)).toEqual(expected);
      expect(await stores.ssoProviders.findByDomain(`A.${tag.toUpperCase()}.EXAMPLE`)).toEqual(expected);
      expect(await stores.ssoProviders.findByEntityId(provider.saml.entityId)).toEqual(expected);
      expect(await stores.ssoProviders.find("not-a-uuid")).toBeNull();
      expect(await stores.ssoProviders.find(uuid())).toBeNull();
      expect(await stores.ssoProviders.findByDomain(`c.${tag}.example`)).toBeNull();
    });

    it("refuses a provider with another's EntityID, domain (in any case) or resource id, writing nothing", async () => {
      const tag = uniqueTag();
      const held = anSsoProvider(tag, { resourceId: `held-${tag}` });
      await stores.ssoProviders.insert(held);
      const sameEntity = anSsoProvider(uniqueTag(), { saml: held.saml });
      await refused(stores.ssoProviders.insert(sameEntity), "saml_idp_already_exists");
      const sameDomain = anSsoProvider(uniqueTag(), {
        domains: [`free.${tag}.example`, `${tag.toUpperCase()}.example`],
      });
      await refused(stores.ssoProviders.insert(sameDomain), "sso_domain_already_exists");
      const sameResource = anSsoProvider(uniqueTag(), { resourceId: `HELD-${tag}` });
      await refused(stores.ssoProviders.insert(sameResource), "validation_failed");
      for (const provider of [sameEntity, sameDomain, sameResource]) {
        expect(await stores.ssoProviders.find(provider.id)).toBeNull();
      }
      expect(await stores.ssoProviders.findByDomain(`free.${tag}.example`)).toBeNull();
    });

    it("lists oldest first, by exact resource id or by a prefix taken literally", async () => {
      const tag = uniqueTag();
      const first = anSsoProvider(uniqueTag(), { resourceId: `${tag}-one`, createdAt: t("09:00:00.000") });
      const second = anSsoProvider(uniqueTag(), { resourceId: `${tag}-two`, createdAt: t("09:30:00.000") });
      const wild = anSsoProvider(uniqueTag(), { resourceId: `${tag}%x`, createdAt: t("09:45:00.000") });
      for (const provider of [second, wild, first]) await stores.ssoProviders.insert(provider);
      expect(idsOf(await stores.ssoProviders.list({ resourceIdPrefix: `${tag}-` }))).toEqual([first.id, second.id]);
      expect(idsOf(await stores.ssoProviders.list({ resourceIdPrefix: `${tag}%` }))).toEqual([wild.id]);
      expect(idsOf(await stores.ssoProviders.list({ resourceId: `${tag}-two` }))).toEqual([second.id]);
      const all = idsOf(await stores.ssoProviders.list());
      expect(all.indexOf(first.id)).toBeLessThan(all.indexOf(second.id));
    });

    it("updates every field but the id and creation, replacing the domains; refuses another's, changing nothing", async () => {
      const tag = uniqueTag();
      const provider = anSsoProvider(tag, { domains: [`a.${tag}.example`, `b.${tag}.example`] });
      const other = anSsoProvider(uniqueTag());
      await stores.ssoProviders.insert(provider);
      await stores.ssoProviders.insert(other);
      const changed: SsoProvider = {
        ...provider,
        resourceId: `changed-${tag}`,
        disabled: true,
        saml: { ...provider.saml, metadataXml: "<EntityDescriptor changed=''/>", attributeMapping: {} },
        domains: [`b.${tag}.example`, `c.${tag}.example`],
        createdAt: t("23:00:00.000"),
        updatedAt: t("11:00:00.000"),
      };
      expect(await stores.ssoProviders.update(changed)).toBe(true);
      expect(await stores.ssoProviders.find(provider.id)).toEqual({ ...changed, createdAt: provider.createdAt });
      // The domain it let go is free.
      expect(await stores.ssoProviders.findByDomain(`a.${tag}.example`)).toBeNull();
      await refused(
        stores.ssoProviders.update({ ...changed, domains: [`d.${tag}.example`, ...other.domains] }),
        "sso_domain_already_exists",
      );
      expect(await stores.ssoProviders.find(provider.id)).toEqual({ ...changed, createdAt: provider.createdAt });
      expect(await stores.ssoProviders.update(anSsoProvider(uniqueTag()))).toBe(false);
    });

    it("deletes a provider with its domains, which another may then hold", async () => {
      const tag = uniqueTag();
      const provider = anSsoProvider(tag);
      await stores.ssoProviders.insert(provider);
      expect(await stores.ssoProviders.delete(provider.id)).toBe(true);
      expect(await stores.ssoProviders.find(provider.id)).toBeNull();
      expect(await stores.ssoProviders.delete(provider.id)).toBe(false);
      expect(await stores.ssoProviders.delete("not-a-uuid")).toBe(false);
      const successor = anSsoProvider(uniqueTag(), { domains: provider.domains });
      await stores.ssoProviders.insert(successor);
      expect((await stores.ssoProviders.findByDomain(provider.domains[0]!))?.id).toBe(successor.id);
    });
  });
}
