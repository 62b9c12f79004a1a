import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import {
  SAML_NAME_ID_FORMATS,
  type SamlAttributeMapping,
  type SamlIdpMetadata,
  type SamlNameIdFormat,
  type SsoProvider,
} from "../../model/sso-provider.ts";

// The admin's registry of SAML identity providers (/admin/sso/providers), with GoTrue's rules and messages
// (docs/compatibility.md, "Single sign-on").

/** A provider as an admin sends it: absent fields stay as they are on an update. */
export interface SsoProviderInput {
  readonly type?: string | undefined;
  readonly metadataUrl?: string | undefined;
  readonly metadataXml?: string | undefined;
  /** Absent: unchanged on an update; empty: none. */
  readonly domains?: readonly string[] | undefined;
  readonly attributeMapping?: SamlAttributeMapping | undefined;
  readonly nameIdFormat?: string | undefined;
  /** Empty clears it. */
  readonly resourceId?: string | undefined;
  readonly disabled?: boolean | undefined;
}

/** How an admin path names a provider: its id, or `resource_<resource id>`. */
export interface SsoProviderRef {
  readonly provider: string;
}

const invalid = (message: string) => new AuthError("validation_failed", message);
const notFound = () => new AuthError("sso_provider_not_found", "SSO Identity Provider not found");

/** GET /admin/sso/providers: every provider, oldest first, by exact resource id or by its prefix when given. */
export function listSsoProviders(
  deps: Deps,
  filter: { readonly resourceId?: string | undefined; readonly resourceIdPrefix?: string | undefined },
): Promise<SsoProvider[]> {
  const { resourceId, resourceIdPrefix } = filter;
  return deps.stores.ssoProviders.list(
    resourceId !== undefined ? { resourceId } : resourceIdPrefix !== undefined ? { resourceIdPrefix } : {},
  );
}

/** GET /admin/sso/providers/<id>. */
export async function getSsoProvider(deps: Deps, ref: SsoProviderRef): Promise<SsoProvider> {
  return found(deps, ref);
}

/** POST /admin/sso/providers: a provider from its metadata (given, or fetched from its URL) and its domains. */
export async function createSsoProvider(deps: Deps, input: SsoProviderInput): Promise<SsoProvider> {
  if (input.type !== "saml") throw invalid("Only 'saml' supported for SSO provider type");
  checkInput(input);
  if (input.metadataUrl === undefined && input.metadataXml === undefined) {
    throw invalid("Either metadata_xml or metadata_url must be set");
  }
  const { xml, metadata } = await metadataOf(deps, input);
  const holder = await deps.stores.ssoProviders.findByEntityId(metadata.entityId);
  if (holder) {
    throw new AuthError(
      "saml_idp_already_exists",
      `SAML Identity Provider with this EntityID (${metadata.entityId}) already exists`,
    );
  }
  const id = deps.random.uuid();
  const domains = domainsOf(input.domains ?? []);
  await refuseHeldDomains(deps, domains, id);
  const now = deps.clock.now();
  const provider: SsoProvider = {
    id,
    resourceId: input.resourceId ? input.resourceId : null,
    disabled: input.disabled ?? null,
    saml: {
      entityId: metadata.entityId,
      metadataXml: xml,
      metadataUrl: input.metadataUrl ?? null,
      attributeMapping: input.attributeMapping ?? {},
      nameIdFormat: (input.nameIdFormat || null) as SamlNameIdFormat | null,
    },
    domains,
    createdAt: now,
    updatedAt: now,
  };
  await deps.stores.ssoProviders.insert(provider);
  return provider;
}

/**
 * PUT /admin/sso/providers/<id>: what is given replaces what was. New metadata must name the same EntityID; the
 * domains given replace all of them. As in GoTrue, a name_id_format left out is cleared.
 */
export async function updateSsoProvider(
  deps: Deps,
  input: SsoProviderRef & { readonly update: SsoProviderInput },
): Promise<SsoProvider> {
  const { update } = input;
  checkInput(update);
  const provider = await found(deps, input);
  let saml = provider.saml;
  if (update.metadataUrl !== undefined || update.metadataXml !== undefined) {
    const { xml, metadata } = await metadataOf(deps, update);
    if (metadata.entityId !== saml.entityId) {
      throw new AuthError(
        "saml_entity_id_mismatch",
        `SAML Metadata can be updated only if the EntityID matches for the provider; expected '${saml.entityId}' but got '${metadata.entityId}'`,
      );
    }
    saml = { ...saml, metadataXml: xml, metadataUrl: update.metadataUrl ?? saml.metadataUrl };
  }
  const domains = update.domains === undefined ? provider.domains : domainsOf(update.domains);
  await refuseHeldDomains(deps, domains, provider.id);
  const updated: SsoProvider = {
    ...provider,
    resourceId: update.resourceId === undefined ? provider.resourceId : update.resourceId || null,
    disabled: update.disabled ?? provider.disabled,
    saml: {
      ...saml,
      attributeMapping: update.attributeMapping?.keys ? update.attributeMapping : saml.attributeMapping,
      nameIdFormat: (update.nameIdFormat || null) as SamlNameIdFormat | null,
    },
    domains,
    updatedAt: deps.clock.now(),
  };
  if (!(await deps.stores.ssoProviders.update(updated))) throw notFound();
  return updated;
}

/** DELETE /admin/sso/providers/<id>: the provider as it was. */
export async function deleteSsoProvider(deps: Deps, ref: SsoProviderRef): Promise<SsoProvider> {
  const provider = await found(deps, ref);
  if (!(await deps.stores.ssoProviders.delete(provider.id))) throw notFound();
  return provider;
}

async function found(deps: Deps, { provider: ref }: SsoProviderRef): Promise<SsoProvider> {
  const provider = ref.startsWith("resource_")
    ? await deps.stores.ssoProviders.findByResourceId(ref.slice("resource_".length))
    : await deps.stores.ssoProviders.find(ref);
  if (!provider) throw notFound();
  return provider;
}

/** GoTrue's checks of a provider's fields, in its order. */
function checkInput(input: SsoProviderInput): void {
  if (input.metadataUrl !== undefined && input.metadataXml !== undefined) {
    throw invalid("Only one of metadata_xml or metadata_url needs to be set");
  }
  if (input.metadataUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(input.metadataUrl);
    } catch {
      throw invalid("metadata_url is not a valid URL");
    }
    if (url.protocol !== "https:") throw invalid("metadata_url is not a HTTPS URL");
  }
  const format = input.nameIdFormat;
  if (format && !(SAML_NAME_ID_FORMATS as readonly string[]).includes(format)) {
    throw invalid(`name_id_format must be unspecified or one of ${SAML_NAME_ID_FORMATS.join(", ")}`);
  }
}

/** The metadata given, or fetched from its URL, as text and parsed. */
async function metadataOf(
  deps: Deps,
  input: SsoProviderInput,
): Promise<{ readonly xml: string; readonly metadata: SamlIdpMetadata }> {
  const xml = input.metadataXml ?? (await deps.samlMetadata.fetch(input.metadataUrl ?? ""));
  return { xml, metadata: deps.samlMetadata.parse(xml) };
}

/**
 * Domains as stored: trimmed, lowercased (they are compared without regard to case, as GoTrue's unique index
 * does), each once.
 */
function domainsOf(domains: readonly string[]): string[] {
  const normalized = domains.map((domain) => domain.trim().toLowerCase());
  if (normalized.some((domain) => domain === "")) throw invalid("SSO domains must not be empty");
  return [...new Set(normalized)];
}

/** Refuses a domain another provider than `ownerId` holds, naming that provider, as GoTrue does. */
async function refuseHeldDomains(deps: Deps, domains: readonly string[], ownerId: string): Promise<void> {
  for (const domain of domains) {
    const holder = await deps.stores.ssoProviders.findByDomain(domain);
    if (holder && holder.id !== ownerId) {
      throw new AuthError(
        "sso_domain_already_exists",
        `SSO Domain '${domain}' is already assigned to an SSO identity provider (${holder.id})`,
      );
    }
  }
}
