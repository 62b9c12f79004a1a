/**
 * Every provider there is, enabled or not, and GoTrue's other names of them: the adapter's list, given at wiring
 * time. The domain learns which providers exist only from here, so that adding one changes nothing in it.
 */
export interface OAuthProviderCatalog {
  /** Every provider's canonical name: `github`, `linkedin`, ... */
  readonly names: readonly string[];
  /** GoTrue's other names, each to the canonical name it stands for: `linkedin_oidc` to `linkedin`. */
  readonly aliases: Readonly<Record<string, string>>;
}

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
