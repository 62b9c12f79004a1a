import type { Deps, LinkRequest, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import type { SsoProvider } from "../../model/sso-provider.ts";
import { isUuid } from "../../model/uuid.ts";
import type { SamlServiceProvider } from "../../ports/saml.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";

export interface StartSsoInput extends LinkRequest {
  readonly providerId?: string | undefined;
  /** The domain of the address the person typed: its provider signs them in. */
  readonly domain?: string | undefined;
  readonly context: RequestContext;
}

/** GoTrue's NameID format when the provider asks for none: an id that lasts. */
const DEFAULT_NAME_ID_FORMAT = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent";

/** The service provider, or GoTrue's answer while SAML is switched off. */
export function serviceProvider(deps: Deps): SamlServiceProvider {
  if (!deps.policy.saml.enabled || deps.samlServiceProvider === null) {
    throw new AuthError("saml_provider_disabled", "SAML 2.0 is disabled");
  }
  return deps.samlServiceProvider;
}

/**
 * POST /sso: a sign-in at the identity provider of `providerId`, or of the address domain `domain`. A relay state is
 * stored under a new id, which the IdP hands back to the ACS with its answer; the result is where to send the
 * browser (a signed AuthnRequest, HTTP-Redirect binding).
 */
export async function startSso(deps: Deps, input: StartSsoInput): Promise<{ readonly url: string }> {
  const sp = serviceProvider(deps);
  await limitPerClient(deps, "sso", input.context);
  const provider = await chosenProvider(deps, input);
  if (provider.disabled === true) throw new AuthError("sso_provider_disabled", "SSO Provider is currently disabled");
  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  const idp = deps.samlMetadata.parse(provider.saml.metadataXml);
  const id = deps.random.uuid();
  const request = await sp.authnRequest({
    idp,
    relayState: id,
    nameIdFormat: provider.saml.nameIdFormat ?? DEFAULT_NAME_ID_FORMAT,
  });
  await deps.stores.samlRelayStates.insert({
    id,
    ssoProviderId: provider.id,
    requestId: request.requestId,
    redirectTo: chooseRedirect(input.redirectTo ?? [], deps.policy.redirect),
    codeChallenge: pkce?.challenge ?? null,
    codeChallengeMethod: pkce?.method ?? null,
    createdAt: deps.clock.now(),
  });
  return { url: request.url };
}

async function chosenProvider(deps: Deps, input: StartSsoInput): Promise<SsoProvider> {
  const providerId = input.providerId ?? "";
  const domain = input.domain ?? "";
  if (providerId !== "" && domain !== "") {
    throw new AuthError("validation_failed", "Only one of provider_id or domain supported");
  }
  if (providerId === "" && domain === "") {
    throw new AuthError("validation_failed", "A provider_id or domain needs to be provided");
  }
  if (providerId !== "") {
    if (!isUuid(providerId)) throw new AuthError("validation_failed", "provider_id must be a UUID");
    const provider = await deps.stores.ssoProviders.find(providerId);
    if (provider === null) throw new AuthError("sso_provider_not_found", "No such SSO provider");
    return provider;
  }
  const provider = await deps.stores.ssoProviders.findByDomain(domain);
  if (provider === null) throw new AuthError("sso_provider_not_found", "No SSO provider assigned for this domain");
  return provider;
}
