import { AuthError } from "../errors.ts";
import type { CustomProvider, OidcDiscovery } from "../model/custom-provider.ts";
import type { CustomProviderRuntime } from "../ports/custom-providers.ts";
import { FakeOAuthProvider } from "./fake-oauth-provider.ts";

export interface FakeCustomProviderRuntimeOptions {
  /** CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS: http and loopback hosts let through (private ranges still refused). */
  readonly allowLoopback?: boolean;
}

const refused = (message: string) => new AuthError("validation_failed", message);

/** A discovery document of `issuer` with endpoints under it, as a test registers one. */
export function oidcDiscovery(issuer: string, overrides: Partial<OidcDiscovery> = {}): OidcDiscovery {
  const base = issuer.replace(/\/+$/, "");
  return {
    issuer,
    authorizationEndpoint: `${base}/authorize`,
    tokenEndpoint: `${base}/token`,
    userinfoEndpoint: `${base}/userinfo`,
    jwksUri: `${base}/jwks`,
    scopesSupported: ["openid", "email", "profile"],
    responseTypesSupported: ["code"],
    grantTypesSupported: null,
    subjectTypesSupported: ["public"],
    ...overrides,
  };
}

/**
 * A CustomProviderRuntime that talks to nobody. checkUrl refuses, with GoTrue's messages, what is not https or names
 * localhost, a 127.x, 10.x or 192.168.x address (no names are resolved); discover answers the documents registered
 * in `documents` by URL, else fails as an unreachable issuer does; provider() gives a FakeOAuthProvider named by the
 * identifier, kept per identifier so a test can drive it.
 */
export class FakeCustomProviderRuntime implements CustomProviderRuntime {
  readonly allowLoopback: boolean;
  /** The discovery documents served, by URL. */
  readonly documents = new Map<string, OidcDiscovery>();
  readonly checkedUrls: string[] = [];
  readonly discovered: { url: string; expectedIssuer: string }[] = [];
  /** The providers handed out, by identifier, and the client secret each was given. */
  readonly providers = new Map<string, { provider: FakeOAuthProvider; clientSecret: string }>();

  constructor(options: FakeCustomProviderRuntimeOptions = {}) {
    this.allowLoopback = options.allowLoopback ?? false;
  }

  /** Serves `document` (by default one naming `issuer`) at the issuer's well-known URL, or at `url`. */
  serve(issuer: string, options: { url?: string; document?: OidcDiscovery } = {}): OidcDiscovery {
    const document = options.document ?? oidcDiscovery(issuer);
    const url = options.url ?? `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    this.documents.set(url, document);
    return document;
  }

  async checkUrl(url: string): Promise<void> {
    this.checkedUrls.push(url);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refused("Invalid URL format");
    }
    const loopbackAllowed = this.allowLoopback;
    if (parsed.protocol !== "https:" && !(loopbackAllowed && parsed.protocol === "http:")) {
      throw refused("URL must use HTTPS");
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (host === "") throw refused("URL must have a valid hostname");
    const loopback =
      host === "localhost" ||
      host.endsWith(".localhost") ||
      host === "::1" ||
      host === "0.0.0.0" ||
      host === "::" ||
      /^127\./.test(host);
    if (loopback && !loopbackAllowed) throw refused("URL cannot point to localhost or loopback addresses");
    if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host)) {
      throw refused("URL cannot resolve to private network addresses");
    }
    if (/^169\.254\./.test(host)) throw refused("URL cannot resolve to link-local addresses");
  }

  async discover(url: string, expectedIssuer: string): Promise<OidcDiscovery> {
    this.discovered.push({ url, expectedIssuer });
    const failed = (why: string) => refused(`OIDC discovery from ${JSON.stringify(url)} failed: ${why}`);
    await this.checkUrl(url).catch((error: unknown) => {
      throw failed(error instanceof Error ? error.message : String(error));
    });
    const document = this.documents.get(url);
    if (document === undefined) throw failed("unexpected status code 404");
    if (document.issuer !== expectedIssuer) {
      throw failed(`issuer mismatch: expected ${expectedIssuer}, got ${document.issuer}`);
    }
    return document;
  }

  provider(stored: CustomProvider, clientSecret: string): FakeOAuthProvider {
    const kept = this.providers.get(stored.identifier);
    if (kept && kept.clientSecret === clientSecret) return kept.provider;
    const provider = new FakeOAuthProvider({ name: stored.identifier, emailOptional: stored.emailOptional });
    this.providers.set(stored.identifier, { provider, clientSecret });
    return provider;
  }
}
