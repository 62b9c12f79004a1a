import type { OAuthProviderCatalog } from "../ports/oauth-provider.ts";

/**
 * The name a provider is stored and configured under: lower-cased (GoTrue stores what the client wrote, so
 * `GitHub` and `github` would be two identities), GoTrue's other names resolved through the catalog
 * (docs/compatibility.md, OAuth sign-in).
 */
export function canonicalProvider(catalog: OAuthProviderCatalog, name: string): string {
  const lower = name.toLowerCase();
  return (Object.hasOwn(catalog.aliases, lower) && catalog.aliases[lower]) || lower;
}

/** Whether the catalog has a provider of that name (or of one of GoTrue's other names for it), enabled or not. */
export function isKnownProvider(catalog: OAuthProviderCatalog, name: string): boolean {
  return catalog.names.includes(canonicalProvider(catalog, name));
}
