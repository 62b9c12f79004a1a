import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { AuditAction } from "../../model/audit.ts";
import {
  CUSTOM_PROVIDER_PREFIX,
  CUSTOM_PROVIDER_TYPES,
  type CustomProvider,
  type CustomProviderType,
  type OidcDiscovery,
} from "../../model/custom-provider.ts";
import type { Metadata } from "../../model/metadata.ts";
import type { CustomProviderRuntime } from "../../ports/custom-providers.ts";
import type { Stores } from "../../ports/stores.ts";
import { recordAdminSettingAudit } from "../../services/audit.ts";

// The admin's registry of custom OAuth 2.0 and OpenID Connect providers (/admin/custom-providers), with GoTrue's
// rules, defaults and messages (internal/api/custom_oauth_admin.go).

/**
 * A provider as an admin sends it. On an update, what is absent (or an empty string, as Go decodes it) stays as it
 * was; the type and identifier never change.
 */
export interface CustomProviderInput {
  readonly providerType?: string | undefined;
  readonly identifier?: string | undefined;
  readonly name?: string | undefined;
  readonly clientId?: string | undefined;
  /** Sealed before it is stored; never returned. */
  readonly clientSecret?: string | undefined;
  readonly acceptableClientIds?: readonly string[] | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly pkceEnabled?: boolean | undefined;
  readonly attributeMapping?: Metadata | undefined;
  readonly customClaimsAllowlist?: readonly string[] | undefined;
  /** Values other than strings are refused, as GoTrue does. */
  readonly authorizationParams?: Metadata | undefined;
  readonly enabled?: boolean | undefined;
  readonly emailOptional?: boolean | undefined;
  readonly issuer?: string | undefined;
  readonly discoveryUrl?: string | undefined;
  readonly skipNonceCheck?: boolean | undefined;
  readonly authorizationUrl?: string | undefined;
  readonly tokenUrl?: string | undefined;
  readonly userinfoUrl?: string | undefined;
  readonly jwksUri?: string | undefined;
}

/** Who changes the registry, for the audit log. */
interface AdminCall {
  readonly admin: AdminPrincipal;
  readonly context: RequestContext;
}

/** How an admin path names a provider: its identifier, `custom:` included. */
export interface CustomProviderRef {
  readonly identifier: string;
}

/** Parameters of the authorization URL the server sets itself: no provider may pin them. */
const RESERVED_AUTHORIZATION_PARAMS: readonly string[] = [
  "client_id",
  "client_secret",
  "redirect_uri",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "code_verifier",
  "nonce",
];

/** Fields of a user no provider's claims may be mapped onto. */
const PROTECTED_MAPPING_TARGETS: readonly string[] = [
  "id",
  "aud",
  "role",
  "app_metadata",
  "created_at",
  "updated_at",
  "confirmed_at",
  "email_confirmed_at",
  "phone_confirmed_at",
  "email_verified",
  "phone_verified",
  "banned_until",
  "is_super_admin",
];

/** GoTrue's check on the identifier column, `custom:` included. */
const IDENTIFIER_FORMAT = /^[a-z0-9][a-z0-9:-]{0,48}[a-z0-9]$/;
/** GoTrue's length checks on the columns, refused here rather than by the database. */
const MAX_NAME_LENGTH = 100;
const MAX_CLIENT_ID_LENGTH = 512;
const MAX_URL_LENGTH = 2048;

const invalid = (message: string) => new AuthError("validation_failed", message);
const notFound = () => new AuthError("custom_provider_not_found", "Custom OAuth provider not found");

/** The runtime, or GoTrue's answer while CUSTOM_OAUTH_ENABLED is off. */
function runtimeOf(deps: Deps): CustomProviderRuntime {
  if (!deps.policy.customProviders.enabled || deps.customProviders === null) {
    throw new AuthError("feature_disabled", "Custom OAuth providers are disabled");
  }
  return deps.customProviders;
}

/** GET /admin/custom-providers: every provider, newest first; `?type=oauth2|oidc` only those of that type. */
export async function listCustomProviders(
  deps: Deps,
  filter: { readonly type?: string | undefined },
): Promise<CustomProvider[]> {
  runtimeOf(deps);
  const { type } = filter;
  if (type === undefined || type === "") return deps.stores.customProviders.list();
  if (!isProviderType(type)) throw invalid("type must be either 'oauth2' or 'oidc'");
  return deps.stores.customProviders.list({ type });
}

/** GET /admin/custom-providers/<identifier> */
export async function getCustomProvider(deps: Deps, ref: CustomProviderRef): Promise<CustomProvider> {
  runtimeOf(deps);
  checkRef(ref);
  const provider = await deps.stores.customProviders.findByIdentifier(ref.identifier);
  if (!provider) throw notFound();
  return provider;
}

/**
 * POST /admin/custom-providers: a new provider, its URLs checked, an OIDC provider's discovery document fetched
 * and kept, its client secret sealed.
 */
export async function createCustomProvider(
  deps: Deps,
  input: AdminCall & { readonly provider: CustomProviderInput },
): Promise<CustomProvider> {
  const runtime = runtimeOf(deps);
  const given = input.provider;
  const providerType = given.providerType;
  if (!isProviderType(providerType)) throw invalid("provider_type must be either 'oauth2' or 'oidc'");
  const required = checkRequired(given, providerType);
  checkAuthorizationParams(given.authorizationParams);
  checkAttributeMapping(given.attributeMapping);
  checkCustomClaimsAllowlist(given.customClaimsAllowlist);
  checkLengths(given);

  const { maxProviders } = deps.policy.customProviders;
  if (maxProviders !== null && maxProviders > 0 && (await deps.stores.customProviders.count()) >= maxProviders) {
    throw new AuthError("over_custom_provider_quota", "Maximum number of custom OAuth/OIDC providers reached");
  }

  const oidc = providerType === "oidc";
  const discoveryUrl = oidc ? nonEmpty(given.discoveryUrl) : null;
  const jwksUri = oidc ? null : nonEmpty(given.jwksUri);
  const urls = oidc
    ? [required.issuer, discoveryUrl]
    : [required.authorizationUrl, required.tokenUrl, required.userinfoUrl, jwksUri];
  for (const url of urls) if (url) await runtime.checkUrl(url);

  if (await deps.stores.customProviders.findByIdentifier(required.identifier)) throw identifierTaken();

  const discovered = oidc ? await discover(deps, runtime, required.issuer, discoveryUrl) : null;
  const now = deps.clock.now();
  const scopes = [...(given.scopes ?? [])];
  const provider: CustomProvider = {
    id: deps.random.uuid(),
    providerType,
    identifier: required.identifier,
    name: required.name,
    clientId: required.clientId,
    sealedClientSecret: deps.secrets.seal(required.clientSecret),
    acceptableClientIds: [...(given.acceptableClientIds ?? [])],
    scopes: oidc ? withOpenId(scopes) : scopes,
    pkceEnabled: given.pkceEnabled ?? true,
    attributeMapping: given.attributeMapping ?? {},
    customClaimsAllowlist: [...(given.customClaimsAllowlist ?? [])],
    authorizationParams: (given.authorizationParams ?? {}) as Record<string, string>,
    enabled: given.enabled ?? true,
    emailOptional: given.emailOptional ?? false,
    issuer: oidc ? required.issuer : null,
    discoveryUrl,
    skipNonceCheck: oidc ? (given.skipNonceCheck ?? false) : false,
    discovery: discovered?.document ?? null,
    discoveryCachedAt: discovered?.at ?? null,
    authorizationUrl: oidc ? null : required.authorizationUrl,
    tokenUrl: oidc ? null : required.tokenUrl,
    userinfoUrl: oidc ? null : required.userinfoUrl,
    jwksUri,
    createdAt: now,
    updatedAt: now,
  };
  await deps.tx.run(async (stores) => {
    await stores.customProviders.insert(provider);
    await audit(deps, stores, { action: "custom_provider_created", call: input, provider });
  });
  return provider;
}

/**
 * PUT /admin/custom-providers/<identifier>: what is given replaces what was (a new client secret only when one is
 * given); an OIDC provider's discovery is fetched again when its issuer or discovery URL is given.
 */
export async function updateCustomProvider(
  deps: Deps,
  input: AdminCall & CustomProviderRef & { readonly update: CustomProviderInput },
): Promise<CustomProvider> {
  const runtime = runtimeOf(deps);
  checkRef(input);
  const { update } = input;
  checkAuthorizationParams(update.authorizationParams);
  checkAttributeMapping(update.attributeMapping);
  checkCustomClaimsAllowlist(update.customClaimsAllowlist);
  checkLengths(update);
  const current = await deps.stores.customProviders.findByIdentifier(input.identifier);
  if (!current) throw notFound();

  const oidc = current.providerType === "oidc";
  const changed = (value: string | undefined) => nonEmpty(value) ?? undefined;
  // Only the URLs of the provider's own type are taken, each checked as it is.
  const issuer = oidc ? changed(update.issuer) : undefined;
  const discoveryUrl = oidc ? changed(update.discoveryUrl) : undefined;
  const authorizationUrl = oidc ? undefined : changed(update.authorizationUrl);
  const tokenUrl = oidc ? undefined : changed(update.tokenUrl);
  const userinfoUrl = oidc ? undefined : changed(update.userinfoUrl);
  const jwksUri = oidc ? undefined : changed(update.jwksUri);
  for (const url of [issuer, discoveryUrl, authorizationUrl, tokenUrl, userinfoUrl, jwksUri]) {
    if (url !== undefined) await runtime.checkUrl(url);
  }

  const scopes = update.scopes === undefined ? current.scopes : oidc ? withOpenId(update.scopes) : [...update.scopes];
  let provider: CustomProvider = {
    ...current,
    name: changed(update.name) ?? current.name,
    clientId: changed(update.clientId) ?? current.clientId,
    acceptableClientIds: update.acceptableClientIds ? [...update.acceptableClientIds] : current.acceptableClientIds,
    scopes,
    pkceEnabled: update.pkceEnabled ?? current.pkceEnabled,
    attributeMapping: update.attributeMapping ?? current.attributeMapping,
    customClaimsAllowlist: update.customClaimsAllowlist
      ? [...update.customClaimsAllowlist]
      : current.customClaimsAllowlist,
    authorizationParams:
      (update.authorizationParams as Record<string, string> | undefined) ?? current.authorizationParams,
    enabled: update.enabled ?? current.enabled,
    emailOptional: update.emailOptional ?? current.emailOptional,
    issuer: issuer ?? current.issuer,
    discoveryUrl: discoveryUrl ?? current.discoveryUrl,
    skipNonceCheck: oidc ? (update.skipNonceCheck ?? current.skipNonceCheck) : current.skipNonceCheck,
    authorizationUrl: authorizationUrl ?? current.authorizationUrl,
    tokenUrl: tokenUrl ?? current.tokenUrl,
    userinfoUrl: userinfoUrl ?? current.userinfoUrl,
    jwksUri: jwksUri ?? current.jwksUri,
    updatedAt: deps.clock.now(),
  };
  // As GoTrue: a discovery_url given at all (even empty) fetches the document again.
  if (oidc && (issuer !== undefined || update.discoveryUrl !== undefined)) {
    const discovered = await discover(deps, runtime, provider.issuer ?? "", provider.discoveryUrl);
    provider = { ...provider, discovery: discovered.document, discoveryCachedAt: discovered.at };
  }
  const clientSecret = changed(update.clientSecret);
  if (clientSecret !== undefined) provider = { ...provider, sealedClientSecret: deps.secrets.seal(clientSecret) };

  const written = provider;
  await deps.tx.run(async (stores) => {
    if (!(await stores.customProviders.update(written))) throw notFound();
    await audit(deps, stores, { action: "custom_provider_updated", call: input, provider: written });
  });
  return written;
}

/** DELETE /admin/custom-providers/<identifier>: the provider as it was. */
export async function deleteCustomProvider(deps: Deps, input: AdminCall & CustomProviderRef): Promise<CustomProvider> {
  runtimeOf(deps);
  checkRef(input);
  return deps.tx.run(async (stores) => {
    const provider = await stores.customProviders.findByIdentifier(input.identifier);
    if (!provider) throw notFound();
    await audit(deps, stores, { action: "custom_provider_deleted", call: input, provider });
    if (!(await stores.customProviders.delete(provider.identifier))) throw notFound();
    return provider;
  });
}

const isProviderType = (type: string | undefined): type is CustomProviderType =>
  (CUSTOM_PROVIDER_TYPES as readonly (string | undefined)[]).includes(type);

const prefixRequired = (identifier: string) =>
  invalid(
    `identifier must start with '${CUSTOM_PROVIDER_PREFIX}' prefix, e.g. '${CUSTOM_PROVIDER_PREFIX}${identifier}'`,
  );

const identifierTaken = () => new AuthError("conflict", "A custom OAuth provider with this identifier already exists");

/** GoTrue's checks of an identifier in the path. */
function checkRef({ identifier }: CustomProviderRef): void {
  if (identifier === "") throw invalid("identifier is required");
  if (!identifier.startsWith(CUSTOM_PROVIDER_PREFIX)) throw prefixRequired(identifier);
}

/** The text given, else null: Go decodes an absent string as the empty one. */
const nonEmpty = (value: string | undefined): string | null => (value === undefined || value === "" ? null : value);

/** The fields a new provider must have, in GoTrue's order of checking them. */
function checkRequired(input: CustomProviderInput, type: CustomProviderType) {
  const identifier = nonEmpty(input.identifier);
  if (identifier === null) throw invalid("identifier is required");
  if (!identifier.startsWith(CUSTOM_PROVIDER_PREFIX)) throw prefixRequired(identifier);
  if (!IDENTIFIER_FORMAT.test(identifier)) {
    throw invalid(
      "identifier must be at most 50 characters of lowercase letters, digits, ':' and '-', ending with a letter or digit",
    );
  }
  const name = nonEmpty(input.name);
  if (name === null) throw invalid("name is required");
  const clientId = nonEmpty(input.clientId);
  if (clientId === null) throw invalid("client_id is required");
  const clientSecret = nonEmpty(input.clientSecret);
  if (clientSecret === null) throw invalid("client_secret is required");
  const issuer = nonEmpty(input.issuer);
  const authorizationUrl = nonEmpty(input.authorizationUrl);
  const tokenUrl = nonEmpty(input.tokenUrl);
  const userinfoUrl = nonEmpty(input.userinfoUrl);
  if (type === "oidc") {
    if (issuer === null) throw invalid("issuer is required for OIDC providers");
  } else {
    if (authorizationUrl === null) throw invalid("authorization_url is required for OAuth2 providers");
    if (tokenUrl === null) throw invalid("token_url is required for OAuth2 providers");
    if (userinfoUrl === null) throw invalid("userinfo_url is required for OAuth2 providers");
  }
  // Each is non-null for the type that needs it; the other type's are not used.
  return {
    identifier,
    name,
    clientId,
    clientSecret,
    issuer: issuer ?? "",
    authorizationUrl: authorizationUrl ?? "",
    tokenUrl: tokenUrl ?? "",
    userinfoUrl: userinfoUrl ?? "",
  };
}

/** GoTrue's column limits, which it leaves to the database (a 500 there); told here as what is wrong. */
function checkLengths(input: CustomProviderInput): void {
  if (input.name !== undefined && input.name.length > MAX_NAME_LENGTH) {
    throw invalid(`name must be at most ${MAX_NAME_LENGTH} characters`);
  }
  if (input.clientId !== undefined && input.clientId.length > MAX_CLIENT_ID_LENGTH) {
    throw invalid(`client_id must be at most ${MAX_CLIENT_ID_LENGTH} characters`);
  }
  const urls = {
    issuer: input.issuer,
    discovery_url: input.discoveryUrl,
    authorization_url: input.authorizationUrl,
    token_url: input.tokenUrl,
    userinfo_url: input.userinfoUrl,
    jwks_uri: input.jwksUri,
  };
  for (const [field, url] of Object.entries(urls)) {
    if (url !== undefined && url.length > MAX_URL_LENGTH) {
      throw invalid(`${field} must be at most ${MAX_URL_LENGTH} characters`);
    }
  }
}

/** No reserved parameter, every value a string (GoTrue's validateAuthorizationParams). */
function checkAuthorizationParams(params: Metadata | undefined): void {
  for (const [key, value] of Object.entries(params ?? {})) {
    if (RESERVED_AUTHORIZATION_PARAMS.includes(key)) throw invalid(`Cannot override reserved OAuth parameter: ${key}`);
    // Go's %q: the key quoted as a JSON string is near enough.
    if (typeof value !== "string") throw invalid(`Authorization parameter ${JSON.stringify(key)} must be a string`);
  }
}

/** No claim mapped onto what only the server sets (GoTrue's validateAttributeMapping). */
function checkAttributeMapping(mapping: Metadata | undefined): void {
  for (const target of Object.keys(mapping ?? {})) {
    if (PROTECTED_MAPPING_TARGETS.includes(target)) throw invalid(`Cannot map to protected system field: ${target}`);
  }
}

/** Every entry a claim's name (GoTrue's validateCustomClaimsAllowlist). */
function checkCustomClaimsAllowlist(allowlist: readonly string[] | undefined): void {
  if (allowlist?.some((key) => key.trim() === "")) {
    throw invalid("custom_claims_allowlist entries must be non-empty strings");
  }
}

/** `openid` first when an OIDC provider's scopes lack it. */
const withOpenId = (scopes: readonly string[]): string[] =>
  scopes.includes("openid") ? [...scopes] : ["openid", ...scopes];

/**
 * The issuer's discovery document, from `discoveryUrl` or the issuer's well-known one, with the time it was
 * fetched; refused when it lacks what OpenID Connect Discovery 1.0 requires.
 */
async function discover(
  deps: Deps,
  runtime: CustomProviderRuntime,
  issuer: string,
  discoveryUrl: string | null,
): Promise<{ readonly document: OidcDiscovery; readonly at: Date }> {
  const url = discoveryUrl ?? `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const document = await runtime.discover(url, issuer);
  const required = {
    issuer: document.issuer,
    authorization_endpoint: document.authorizationEndpoint,
    token_endpoint: document.tokenEndpoint,
    jwks_uri: document.jwksUri,
  };
  const missing = Object.entries(required).filter(([, value]) => !value);
  if (missing.length > 0) {
    throw invalid(`OIDC discovery document is missing required fields: ${missing.map(([name]) => name).join(", ")}`);
  }
  return { document, at: deps.clock.now() };
}

/** The audit entry of a change to the registry: which provider, of which type. */
function audit(
  deps: Deps,
  stores: Stores,
  { action, call, provider }: { action: AuditAction; call: AdminCall; provider: CustomProvider },
) {
  return recordAdminSettingAudit(deps, stores, {
    action,
    admin: call.admin,
    context: call.context,
    traits: {
      provider_id: provider.id,
      provider_identifier: provider.identifier,
      provider_type: provider.providerType,
    },
  });
}
