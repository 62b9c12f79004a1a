import type { IdTokenVerifier, OAuthCallback, OAuthProvider, ProviderProfile } from "@latchkey/domain";
import type { ClientAuthMethod, TokenAnswer } from "./oauth2/code-flow.ts";
import type { Discovery } from "./oidc/discovery.ts";
import type { IdTokenKeys } from "./oidc/id-token.ts";

/** One provider's settings: EXTERNAL_<P>_*. */
export interface ProviderSettings {
  /** EXTERNAL_<P>_CLIENT_ID, split on commas: the first for code flows, all as id_token audiences. */
  readonly clientIds: readonly string[];
  readonly secret: string;
  /** Sent as `redirect_uri`: this server's /callback as the provider knows it. */
  readonly redirectUri: string;
  /**
   * EXTERNAL_<P>_URL, without a trailing `/`: replaces every host of the provider (an enterprise install, a
   * regional endpoint, a stand-in in tests); for OIDC providers, the issuer whose discovery is read.
   */
  readonly url?: string | undefined;
  readonly emailOptional: boolean;
  readonly skipNonceCheck: boolean;
}

/** What a provider's code has to work with. */
export interface ProviderContext {
  readonly name: string;
  readonly settings: ProviderSettings;
  /** Bounded in time and size, never following redirects (http/bounded-fetch.ts). */
  readonly fetch: typeof globalThis.fetch;
  readonly discovery: Discovery;
  readonly idTokenKeys: IdTokenKeys;
}

/** The two endpoints of a code flow. */
interface CodeFlowEndpoints {
  readonly authorization: string;
  readonly token: string;
}

/**
 * What the rest of Latchkey knows of a provider: the names it is reached and configured under, how the settings
 * reference names it, and where its settings differ from every other provider's. The server derives its
 * EXTERNAL_<P>_* settings from these, and the domain its catalog of providers.
 */
export interface ProviderFacts<N extends string = string> {
  /** The canonical name: what identities are stored under, and `<P>` of EXTERNAL_<P>_* upper-cased. */
  readonly name: N;
  /** How the settings reference names it: "GitHub", "Azure (Microsoft Entra ID)". */
  readonly title: string;
  /** GoTrue's other name of the same provider, reached and configured under too (`linkedin_oidc`). */
  readonly alias?: string;
  /** Where its settings are unlike the others'. */
  readonly settings?: SettingsQuirks;
}

/** How one provider's EXTERNAL_<P>_* settings differ from the common ones. */
export interface SettingsQuirks {
  /** The meaning of EXTERNAL_<P>_SECRET, when it is not a plain client secret (Apple's signed JWT). */
  readonly secret?: string;
  /** EXTERNAL_<P>_URL's meaning, and whether an enabled provider needs it (Keycloak's realm). */
  readonly url?: { readonly doc: string; readonly required: boolean };
}

/** Makes a provider from its context: an OAuth 2.0 definition's code flow, or a flow of its own (Twitter's 1.0a). */
export type ProviderFactory = (context: ProviderContext) => OAuthProvider;

/** A provider whose flow is its own rather than the shared OAuth 2.0 code flow (Twitter's OAuth 1.0a). */
export interface OwnFlowDefinition<N extends string = string> extends ProviderFacts<N> {
  readonly flow: ProviderFactory;
}

/** Every provider is one or the other. */
export type ProviderDefinition<N extends string = string> = OAuth2Definition<N> | OwnFlowDefinition<N>;

/**
 * An OAuth 2.0 provider, as a table of its facts and the code that is its own: where its endpoints are, which
 * scopes and client authentication it takes, and how its profile reads as GoTrue's claims.
 */
export interface OAuth2Definition<N extends string = string> extends ProviderFacts<N> {
  readonly defaultScopes: readonly string[];
  /** Whether `scopes=` of /authorize is added to the defaults. */
  readonly takesScopes: boolean;
  readonly clientAuth: ClientAuthMethod;
  /** PKCE towards the provider, with a verifier this server makes and keeps (X). */
  readonly pkce?: boolean;
  /** Fixed parameters of the authorization URL (Apple's `response_mode=form_post`). */
  readonly authorizeParams?: readonly (readonly [string, string])[];
  /** Client parameters passed on under another name (WorkOS's `workos_provider` as `provider`). */
  readonly renameParams?: Readonly<Record<string, string>>;
  endpoints(context: ProviderContext): CodeFlowEndpoints | Promise<CodeFlowEndpoints>;
  /** Further form fields of the token request. */
  exchangeForm?(context: ProviderContext): Readonly<Record<string, string>>;
  /** The client secret to authenticate with, when it is not the setting itself. */
  clientSecret?(context: ProviderContext): string | Promise<string>;
  /** Who signed in, from the token answer (and the callback's own parameters, for Apple's `user`). */
  profile(context: ProviderContext, answer: TokenAnswer, callback: OAuthCallback): Promise<ProviderProfile>;
  /** For the id_token grant, when the provider supports it. */
  idTokens?(context: ProviderContext): IdTokenVerifier;
}

/** The provider's base URL: EXTERNAL_<P>_URL when set, else its default origin. */
export function baseUrl(context: ProviderContext, defaultOrigin: string): string {
  return context.settings.url ?? defaultOrigin;
}
