import type { Deps } from "../../deps.ts";
import { isAuthError } from "../../errors.ts";
import type { SamlIdpMetadata, SsoProvider } from "../../model/sso-provider.ts";

const DAY_MS = 86_400_000;
/** How long before its metadata expires an admin is warned at each sign-in (GoTrue's 30 days). */
const EXPIRY_WARNING_MS = 30 * DAY_MS;

/**
 * Whether metadata fetched from a URL is due to be fetched again (GoTrue's rule): past its validUntil, past its
 * cacheDuration since it was stored, or, when it states neither, a day after it was stored.
 */
function isMetadataStale(metadata: SamlIdpMetadata, storedAt: Date, now: Date): boolean {
  const age = now.getTime() - storedAt.getTime();
  if (metadata.validUntil !== null && now.getTime() > metadata.validUntil.getTime()) return true;
  if (metadata.cacheDurationSeconds !== null && age > metadata.cacheDurationSeconds * 1000) return true;
  return metadata.validUntil === null && metadata.cacheDurationSeconds === null && age > DAY_MS;
}

/**
 * The provider's metadata to check a sign-in against: fetched again from its URL when stale, and stored if it still
 * names the provider's EntityID (a URL that now answers for another IdP changes nothing). A fetch that fails keeps
 * what was stored, and the operator hears of it, as GoTrue does; so does metadata given as XML that is about to
 * expire.
 */
export async function currentMetadata(deps: Deps, provider: SsoProvider): Promise<SamlIdpMetadata> {
  const now = deps.clock.now();
  const stored = deps.samlMetadata.parse(provider.saml.metadataXml);
  const attention = (problem: "expiring" | "refresh_failed", reason?: string) =>
    deps.events.record({
      kind: "saml_metadata_attention",
      problem,
      providerId: provider.id,
      entityId: provider.saml.entityId,
      validUntil: stored.validUntil,
      ...(reason === undefined ? {} : { reason }),
    });
  const { metadataUrl } = provider.saml;
  if (metadataUrl === null) {
    if (stored.validUntil !== null && stored.validUntil.getTime() - now.getTime() <= EXPIRY_WARNING_MS) {
      attention("expiring");
    }
    return stored;
  }
  if (!isMetadataStale(stored, provider.updatedAt, now)) return stored;
  try {
    const xml = await deps.samlMetadata.fetch(metadataUrl);
    const fresh = deps.samlMetadata.parse(xml);
    if (fresh.entityId !== provider.saml.entityId) {
      attention("refresh_failed", `the metadata at the URL now names another EntityID: ${fresh.entityId}`);
      return stored;
    }
    await deps.stores.ssoProviders.update({
      ...provider,
      saml: { ...provider.saml, metadataXml: xml },
      updatedAt: now,
    });
    return fresh;
  } catch (error) {
    if (!isAuthError(error)) throw error;
    attention("refresh_failed", error.message);
    return stored;
  }
}
