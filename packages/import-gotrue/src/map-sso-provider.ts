import {
  SAML_NAME_ID_FORMATS,
  type SamlAttributeMapping,
  type SamlNameIdFormat,
  type SsoProvider,
} from "@latchkey/domain";
import type { GotrueRow, GotrueSsoRows } from "./gotrue-source.ts";
import { dateOf, nonEmpty, objectOf } from "./row-values.ts";

interface MappedSsoProviders {
  readonly providers: SsoProvider[];
  /** Providers whose rows cannot be one here, with why. */
  readonly skipped: { providerId: string; reason: string }[];
}

const NAME_ID_FORMATS: ReadonlySet<string> = new Set(SAML_NAME_ID_FORMATS);

/**
 * GoTrue's SSO providers as ours: each `sso_providers` row with its `saml_providers` row and its `sso_domains`, its
 * id kept (its users' identities are `sso:<id>`), its metadata byte for byte and its EntityID as GoTrue stored them
 * (nothing is fetched again), its domains trimmed and lowercased, as the store keeps them.
 */
export function mapSsoProviders(rows: GotrueSsoRows): MappedSsoProviders {
  const saml = new Map(rows.samlProviders.map((row) => [String(row["sso_provider_id"]), row]));
  const domains = new Map<string, string[]>();
  for (const row of rows.domains) {
    const domain = nonEmpty(row["domain"])?.trim().toLowerCase();
    if (domain === undefined) continue;
    const providerId = String(row["sso_provider_id"]);
    domains.set(providerId, [...(domains.get(providerId) ?? []), domain]);
  }
  const providers: SsoProvider[] = [];
  const skipped: { providerId: string; reason: string }[] = [];
  for (const row of rows.providers) {
    const id = String(row["id"]);
    const settings = saml.get(id);
    const mapped =
      settings === undefined ? "no SAML settings (no saml_providers row)" : mapProvider(row, settings, domains);
    if (typeof mapped === "string") skipped.push({ providerId: id, reason: mapped });
    else providers.push(mapped);
  }
  return { providers, skipped };
}

/** The provider, or why it cannot be one here. */
function mapProvider(
  row: GotrueRow,
  settings: GotrueRow,
  domains: ReadonlyMap<string, string[]>,
): SsoProvider | string {
  const id = String(row["id"]);
  const entityId = nonEmpty(settings["entity_id"]);
  if (entityId === null) return "no EntityID (saml_providers.entity_id)";
  // Byte for byte: its signature, if any, covers the bytes.
  const metadataXml = typeof settings["metadata_xml"] === "string" ? settings["metadata_xml"] : "";
  if (metadataXml.trim() === "") return "no metadata (saml_providers.metadata_xml)";
  const nameIdFormat = nonEmpty(settings["name_id_format"]);
  if (nameIdFormat !== null && !NAME_ID_FORMATS.has(nameIdFormat)) {
    return `its name_id_format ${JSON.stringify(nameIdFormat)} is none GoTrue's admin API takes, nor Latchkey's`;
  }
  const createdAt = dateOf(row["created_at"]) ?? dateOf(settings["created_at"]) ?? new Date(0);
  const disabled = row["disabled"];
  return {
    id,
    resourceId: nonEmpty(row["resource_id"]),
    disabled: typeof disabled === "boolean" ? disabled : null,
    saml: {
      entityId,
      metadataXml,
      metadataUrl: nonEmpty(settings["metadata_url"]),
      attributeMapping: objectOf(settings["attribute_mapping"]) as SamlAttributeMapping,
      nameIdFormat: nameIdFormat as SamlNameIdFormat | null,
    },
    domains: [...new Set(domains.get(id) ?? [])].sort(),
    createdAt,
    updatedAt: dateOf(row["updated_at"]) ?? dateOf(settings["updated_at"]) ?? createdAt,
  };
}
