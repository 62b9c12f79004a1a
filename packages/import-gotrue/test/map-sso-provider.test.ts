import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { GotrueRow } from "../src/gotrue-source.ts";
import { mapSsoProviders } from "../src/map-sso-provider.ts";

const at = new Date("2025-03-01T00:00:00Z");
const later = new Date("2025-06-01T00:00:00Z");
const METADATA = '<?xml version="1.0"?>\r\n<md:EntityDescriptor entityID="https://idp.test"/>\n';

function provider(fields: Record<string, unknown> = {}): GotrueRow {
  return { id: randomUUID(), resource_id: null, created_at: at, updated_at: later, disabled: null, ...fields };
}
const saml = (ssoProviderId: unknown, fields: Record<string, unknown> = {}): GotrueRow => ({
  id: randomUUID(),
  sso_provider_id: ssoProviderId,
  entity_id: "https://idp.test",
  metadata_xml: METADATA,
  metadata_url: null,
  attribute_mapping: null,
  name_id_format: null,
  created_at: at,
  updated_at: at,
  ...fields,
});
const domain = (ssoProviderId: unknown, name: string): GotrueRow => ({
  id: randomUUID(),
  sso_provider_id: ssoProviderId,
  domain: name,
});

describe("mapping GoTrue's SSO providers", () => {
  it("keeps the id, GoTrue's EntityID, the metadata byte for byte and the settings; lowercases the domains", () => {
    const row = provider({ resource_id: "Acme", disabled: true });
    const mapping = { keys: { email: { name: "mail" }, groups: { name: "memberOf", array: true } } };
    const settings = saml(row["id"], {
      metadata_url: "https://idp.test/metadata",
      attribute_mapping: mapping,
      name_id_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    });
    const { providers, skipped } = mapSsoProviders({
      providers: [row],
      samlProviders: [settings],
      domains: [domain(row["id"], "Corp.Acme.test "), domain(row["id"], "acme.test")],
    });
    expect(skipped).toEqual([]);
    expect(providers).toEqual([
      {
        id: row["id"],
        resourceId: "Acme",
        disabled: true,
        saml: {
          entityId: "https://idp.test",
          metadataXml: METADATA,
          metadataUrl: "https://idp.test/metadata",
          attributeMapping: mapping,
          nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        },
        domains: ["acme.test", "corp.acme.test"],
        createdAt: at,
        updatedAt: later,
      },
    ]);
  });

  it("reads the columns older GoTrue versions lack, or leave NULL, as GoTrue's defaults", () => {
    const { id, ...withoutDisabled } = provider();
    const row = { id, ...withoutDisabled, disabled: undefined, created_at: null, updated_at: null };
    const { name_id_format: _, ...older } = saml(id, { attribute_mapping: null });
    const { providers } = mapSsoProviders({ providers: [row], samlProviders: [older], domains: [] });
    expect(providers[0]).toMatchObject({
      disabled: null,
      domains: [],
      saml: { attributeMapping: {}, nameIdFormat: null, metadataUrl: null },
      createdAt: at,
      updatedAt: at,
    });
  });

  it("skips, with why, a provider without SAML settings or with a NameID format no one takes", () => {
    const bare = provider();
    const odd = provider();
    const { providers, skipped } = mapSsoProviders({
      providers: [bare, odd],
      samlProviders: [saml(odd["id"], { name_id_format: "urn:example:odd" })],
      domains: [],
    });
    expect(providers).toEqual([]);
    expect(skipped).toEqual([
      { providerId: bare["id"], reason: "no SAML settings (no saml_providers row)" },
      {
        providerId: odd["id"],
        reason: `its name_id_format "urn:example:odd" is none GoTrue's admin API takes, nor Latchkey's`,
      },
    ]);
  });
});
