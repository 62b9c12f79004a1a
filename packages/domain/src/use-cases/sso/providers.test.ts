import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { failsWith } from "../../testing/fails-with.ts";
import { FakeSamlMetadata, idpMetadataXml } from "../../testing/fake-saml-metadata.ts";

function setUp() {
  const samlMetadata = new FakeSamlMetadata();
  const testAuth = createTestAuth({ ports: { samlMetadata } });
  return { ...testAuth, samlMetadata, sso: testAuth.auth.sso };
}

const xml = idpMetadataXml("https://idp.acme.example/entity");

describe("an admin's SAML identity providers", () => {
  it("adds one from its metadata, with its domains lowercased, and finds it by id or resource id", async () => {
    const { sso } = setUp();
    const provider = await sso.createProvider({
      type: "saml",
      metadataXml: xml,
      domains: ["Acme.example", " acme.example", "corp.acme.example"],
      attributeMapping: { keys: { name: { name: "displayName" } } },
      nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      resourceId: "acme",
    });
    expect(provider).toMatchObject({
      resourceId: "acme",
      disabled: null,
      saml: { entityId: "https://idp.acme.example/entity", metadataXml: xml, metadataUrl: null },
      domains: ["acme.example", "corp.acme.example"],
    });
    expect(await sso.getProvider({ provider: provider.id })).toEqual({
      ...provider,
      domains: ["acme.example", "corp.acme.example"],
    });
    expect((await sso.getProvider({ provider: "resource_acme" })).id).toBe(provider.id);
    await failsWith("sso_provider_not_found", sso.getProvider({ provider: "resource_other" }));
    await failsWith("sso_provider_not_found", sso.getProvider({ provider: "not-a-uuid" }));
  });

  it("fetches the metadata from its https URL, and says why it could not", async () => {
    const { sso, samlMetadata } = setUp();
    samlMetadata.served.set("https://idp.acme.example/metadata", xml);
    const provider = await sso.createProvider({ type: "saml", metadataUrl: "https://idp.acme.example/metadata" });
    expect(provider.saml).toMatchObject({ metadataUrl: "https://idp.acme.example/metadata", metadataXml: xml });
    const missing = sso.createProvider({ type: "saml", metadataUrl: "https://idp.other.example/metadata" });
    expect((await failsWith("saml_metadata_fetch_failed", missing)).message).toContain("HTTP 404");
  });

  it("refuses what GoTrue refuses, with its messages, writing nothing", async () => {
    const { sso, samlMetadata } = setUp();
    const refused = async (input: Parameters<typeof sso.createProvider>[0], message: string) => {
      expect((await failsWith("validation_failed", sso.createProvider(input))).message).toEqual(message);
    };
    await refused({ type: "oidc", metadataXml: xml }, "Only 'saml' supported for SSO provider type");
    await refused({ type: "saml" }, "Either metadata_xml or metadata_url must be set");
    await refused(
      { type: "saml", metadataXml: xml, metadataUrl: "https://idp.example/m" },
      "Only one of metadata_xml or metadata_url needs to be set",
    );
    await refused({ type: "saml", metadataUrl: "not a url" }, "metadata_url is not a valid URL");
    await refused({ type: "saml", metadataUrl: "http://idp.example/m" }, "metadata_url is not a HTTPS URL");
    await refused(
      { type: "saml", metadataXml: xml, nameIdFormat: "urn:example:format" },
      expect.stringContaining("name_id_format must be unspecified or one of") as unknown as string,
    );
    await refused({ type: "saml", metadataXml: "<EntityDescriptor/>" }, "SAML Metadata does not contain an EntityID");
    await refused({ type: "saml", metadataXml: xml, domains: ["acme.example", " "] }, "SSO domains must not be empty");
    expect(samlMetadata.fetched).toEqual([]);
    expect(await sso.listProviders({})).toEqual([]);
  });

  it("keeps each EntityID and domain to one provider, naming the one that holds it", async () => {
    const { sso } = setUp();
    const held = await sso.createProvider({ type: "saml", metadataXml: xml, domains: ["acme.example"] });
    const again = await failsWith("saml_idp_already_exists", sso.createProvider({ type: "saml", metadataXml: xml }));
    expect(again.message).toBe(
      "SAML Identity Provider with this EntityID (https://idp.acme.example/entity) already exists",
    );
    const other = idpMetadataXml("https://idp.other.example/entity");
    const taken = sso.createProvider({ type: "saml", metadataXml: other, domains: ["ACME.example"] });
    expect((await failsWith("sso_domain_already_exists", taken)).message).toBe(
      `SSO Domain 'acme.example' is already assigned to an SSO identity provider (${held.id})`,
    );
    expect(await sso.listProviders({})).toHaveLength(1);
  });

  it("updates what is given: domains replaced, metadata only of the same EntityID, name_id_format cleared when left out", async () => {
    const { sso, clock } = setUp();
    const provider = await sso.createProvider({
      type: "saml",
      metadataXml: xml,
      domains: ["acme.example"],
      nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      resourceId: "acme",
    });
    clock.advance({ seconds: 60 });
    const newer = `${xml}<!-- rotated -->`;
    const updated = await sso.updateProvider({
      provider: provider.id,
      update: { metadataXml: newer, domains: ["acme.example", "acme.test"], disabled: true },
    });
    expect(updated).toMatchObject({
      resourceId: "acme",
      disabled: true,
      saml: { metadataXml: newer, nameIdFormat: null },
      domains: ["acme.example", "acme.test"],
    });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(provider.updatedAt.getTime());
    const cleared = await sso.updateProvider({ provider: "resource_acme", update: { domains: [], resourceId: "" } });
    expect(cleared).toMatchObject({ resourceId: null, domains: [], disabled: true });
    const mismatch = sso.updateProvider({
      provider: provider.id,
      update: { metadataXml: idpMetadataXml("https://idp.other.example/entity") },
    });
    expect((await failsWith("saml_entity_id_mismatch", mismatch)).message).toBe(
      "SAML Metadata can be updated only if the EntityID matches for the provider; expected 'https://idp.acme.example/entity' but got 'https://idp.other.example/entity'",
    );
    await failsWith("sso_provider_not_found", sso.updateProvider({ provider: "resource_acme", update: {} }));
  });

  it("deletes one, answering it as it was, and lists the rest oldest first, filtered by resource id", async () => {
    const { sso, clock } = setUp();
    const made = [];
    for (const name of ["team-a", "team-b", "other"]) {
      made.push(
        await sso.createProvider({
          type: "saml",
          metadataXml: idpMetadataXml(`https://idp.${name}.example`),
          resourceId: name,
        }),
      );
      clock.advance({ seconds: 1 });
    }
    expect((await sso.listProviders({ resourceIdPrefix: "team-" })).map((p) => p.resourceId)).toEqual([
      "team-a",
      "team-b",
    ]);
    expect((await sso.listProviders({ resourceId: "other" })).map((p) => p.resourceId)).toEqual(["other"]);
    expect(await sso.deleteProvider({ provider: made[0]!.id })).toEqual(made[0]);
    await failsWith("sso_provider_not_found", sso.deleteProvider({ provider: made[0]!.id }));
    expect((await sso.listProviders({})).map((p) => p.resourceId)).toEqual(["team-b", "other"]);
  });
});
