import type { Auth, LinkEmail } from "@latchkey/domain";
import type { PublicSettings } from "../present/settings.ts";

/** Builds the link of a mail that is not sent (generate_link) exactly as the mailer builds a sent one's. */
export type ActionLink = (email: LinkEmail) => string;

/** The keys other services verify tokens with, and the algorithms tokens may have. */
export interface SigningKeys {
  /** Public JWKs; none for HMAC keys. */
  readonly jwks: readonly object[];
  readonly algorithms: readonly string[];
}

/** What GET /ready found of each dependency it checked, by name (`{ database: "ok", redis: "unavailable" }`). */
export type ReadinessReport = Readonly<Record<string, "ok" | "unavailable">>;

/** GET /ready's answer: whether this instance can serve, and what was found of each dependency. */
export interface ReadinessAnswer {
  /** False answers 503: a dependency the instance cannot serve without failed. */
  readonly ready: boolean;
  /** Every dependency checked, those whose failure leaves the instance able to serve (reported only) included. */
  readonly dependencies: ReadinessReport;
}

/**
 * Checks the server's dependencies, each within a short time, and never rejects: a dependency that fails or does
 * not answer in time is "unavailable". The deployment decides what is checked, and which failures make the
 * instance unready.
 */
export type Readiness = () => Promise<ReadinessAnswer>;

/**
 * The cookie that binds an OAuth sign-in to the browser that went to /authorize: sent only to the provider's
 * callback (its redirect URI's path), and `Secure` when the API is served over https.
 */
export interface OAuthFlowCookie {
  readonly secure: boolean;
  /** The path of the provider's callback, as the browser sees it. */
  callbackPath(provider: string): string;
}

/** One setting the server started with, as `latchkey config` shows it (Latchkey's own GET /admin/settings). */
export interface EffectiveSetting {
  /** The name it was read under, else the one it is documented under (`SITE_URL`, `GOTRUE_SITE_URL`, …). */
  readonly name: string;
  /** As the operator wrote it, or its default; secrets redacted; null when it has none to show. */
  readonly value: string | null;
  /** Where it came from: `environment`, `.env file`, `default`, `development profile` or `unset`. */
  readonly source: string;
}

/**
 * The settings the server started with, every declared one, secrets redacted by the deployment (the HTTP layer
 * knows no configuration), and the profile they were read in.
 */
export type EffectiveSettings = () => {
  readonly profile: "production" | "development";
  readonly settings: readonly EffectiveSetting[];
};

/** What handlers are made from. */
export interface HandlerDeps {
  readonly auth: Auth;
  readonly settings: PublicSettings;
  /** The build's version, reported by /health. */
  readonly version: string;
  readonly actionLink: ActionLink;
  readonly signingKeys: SigningKeys;
  readonly readiness: Readiness;
  readonly oauthFlowCookie: OAuthFlowCookie;
  readonly effectiveSettings: EffectiveSettings;
}
