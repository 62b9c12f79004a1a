import type { Deps } from "../../deps.ts";
import { serviceProvider } from "./start-sso.ts";

/** How long a downloaded copy of our metadata says it is valid: 5 years, as Google Workspace's (GoTrue's choice). */
const DOWNLOAD_VALIDITY_YEARS = 5;
/** While a key rotates in, identity providers are asked to fetch the metadata again within the hour. */
const ROTATION_CACHE_SECONDS = 3600;

export interface ServiceProviderMetadata {
  readonly xml: string;
  /** How long caches may keep it: 10 minutes, 1 while a key rotates in (GoTrue's). */
  readonly maxAgeSeconds: number;
}

/**
 * GET /sso/saml/metadata: our SAML metadata, for an admin to give their identity provider. A download (`?download=
 * true`) is a file kept by hand, so it says how long it stays valid.
 */
export async function serviceProviderMetadata(
  deps: Deps,
  input: { readonly download: boolean },
): Promise<ServiceProviderMetadata> {
  const sp = serviceProvider(deps);
  let validUntil: Date | null = null;
  if (input.download) {
    validUntil = deps.clock.now();
    validUntil.setUTCFullYear(validUntil.getUTCFullYear() + DOWNLOAD_VALIDITY_YEARS);
  }
  const xml = await sp.metadata({ validUntil, cacheDurationSeconds: sp.rotating ? ROTATION_CACHE_SECONDS : null });
  return { xml, maxAgeSeconds: sp.rotating ? 60 : 600 };
}
