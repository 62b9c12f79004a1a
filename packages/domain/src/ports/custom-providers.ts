import type { CustomProvider, OidcDiscovery } from "../model/custom-provider.ts";
import type { OAuthProvider } from "./oauth-provider.ts";

/**
 * What custom providers need from outside: URLs an admin gives checked against server-side request forgery, the
 * OpenID discovery of an issuer, and a provider to sign in with made from a stored one.
 */
export interface CustomProviderRuntime {
  /**
   * Throws AuthError `validation_failed` with GoTrue's messages ("URL must use HTTPS", "URL cannot point to
   * localhost or loopback addresses", "URL cannot resolve to private network addresses", ...) unless `url` is an
   * https URL whose host resolves only to public addresses; CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS lets http and loopback
   * through (never private or link-local ranges).
   */
  checkUrl(url: string): Promise<void>;
  /**
   * The discovery document at `url`, fetched within a deadline and a size cap, every hop checked as checkUrl does;
   * its `issuer` must be `expectedIssuer`. Throws AuthError `validation_failed` saying why not.
   */
  discover(url: string, expectedIssuer: string): Promise<OidcDiscovery>;
  /** The provider to sign in with, its client secret opened. */
  provider(stored: CustomProvider, clientSecret: string): OAuthProvider;
}
