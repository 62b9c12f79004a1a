import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { mappedClaims, samlEmail, samlProfile, samlUserId } from "../../model/saml-claims.ts";
import type { SamlAssertion, SsoProvider } from "../../model/sso-provider.ts";
import { isUuid } from "../../model/uuid.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { afterUserCreated } from "../../services/hooks/user-created.ts";
import { onceMoreIfRaced } from "../../services/identities/once-more-if-raced.ts";
import { grantSignIn, openSession } from "../../services/sessions.ts";
import { issueAuthCode } from "../../services/tokens/auth-code.ts";
import { samlAssertionDigest } from "../../services/tokens/digests.ts";
import { currentMetadata } from "./current-metadata.ts";
import { signInWithSaml } from "./sign-in-with-saml.ts";
import { serviceProvider } from "./start-sso.ts";

export interface CompleteSamlInput {
  /** The form the IdP's page posted: `SAMLResponse` and `RelayState`. */
  readonly form: Readonly<Record<string, string>>;
  readonly context: RequestContext;
}

/** Where the browser goes after the ACS, and what it carries: a session (implicit flow) or a code (PKCE). */
export type CompleteSamlResult = { readonly redirectTo: string } & (
  | { readonly kind: "session"; readonly grant: SessionGrant }
  | { readonly kind: "auth_code"; readonly authCode: string }
);

/** The sign-in the answer belongs to: which provider, which request of ours (none when the IdP started it). */
interface AwaitedSignIn {
  readonly provider: SsoProvider;
  readonly requestId: string | null;
  readonly redirectTo: string;
  readonly pkce: PkceChallenge | null;
}

const invalid = (message: string) => new AuthError("validation_failed", message);

/**
 * POST /sso/saml/acs: an identity provider's answer, posted by the browser (HTTP-POST binding). Its RelayState names
 * the sign-in POST /sso started, which is used up here whatever happens; an empty one, or a URL, is a sign-in the
 * IdP started, taken while SAML_IDP_INITIATED_ENABLED is on. Every failure throws: the browser goes to SITE_URL with
 * it (GoTrue's behaviour).
 */
export async function completeSaml(deps: Deps, input: CompleteSamlInput): Promise<CompleteSamlResult> {
  const sp = serviceProvider(deps);
  await limitPerClient(deps, "saml_assertion", input.context);
  const samlResponse = input.form["SAMLResponse"] ?? "";
  const awaited = await awaitedSignIn(deps, input.form);
  if (samlResponse === "") throw invalid("SAMLResponse is missing");
  const { provider } = awaited;
  if (provider.disabled === true) {
    throw new AuthError("sso_provider_disabled", "SSO Provider assigned for this domain is currently disabled");
  }
  const idp = await currentMetadata(deps, provider);
  const assertion = await sp.readAssertion({ idp, samlResponse, inResponseTo: awaited.requestId });
  const profile = profileOf(provider, assertion);
  const providerName = `sso:${provider.id}`;
  const now = deps.clock.now();
  let created: Awaited<ReturnType<typeof signInWithSaml>>["created"];
  const outcome = await onceMoreIfRaced(() =>
    deps.tx.run(async (stores) => {
      // The assertion is spent with the sign-in it makes: both commit, or neither.
      if (
        !(await stores.usedIdTokens.remember(
          samlAssertionDigest(deps.secrets, provider, assertion),
          assertion.expiresAt,
          now,
        ))
      ) {
        throw invalid("SAML Assertion has already been used");
      }
      const signedIn = await signInWithSaml(deps, stores, { provider: providerName, profile, context: input.context });
      created = signedIn.created;
      if (awaited.pkce !== null) {
        const authCode = await issueAuthCode(deps, stores, {
          userId: signedIn.user.id,
          pkce: awaited.pkce,
          authenticationMethod: "sso/saml",
          provider: null,
          createdAt: now,
        });
        return { kind: "auth_code" as const, authCode };
      }
      const opened = await openSession(deps, stores, signedIn.user, {
        method: "sso/saml",
        context: input.context,
        notAfter: assertion.sessionNotOnOrAfter,
      });
      return { kind: "session" as const, user: signedIn.user, opened };
    }),
  );
  if (created !== undefined) {
    // Counted as `saml`, not by provider: an app may have one identity provider per customer.
    deps.events.record({ kind: "signed_up", provider: "saml" });
    await afterUserCreated(deps, { user: created, context: input.context });
  }
  const redirectTo = awaited.redirectTo;
  if (outcome.kind === "auth_code") return { redirectTo, ...outcome };
  return { redirectTo, kind: "session", grant: await grantSignIn(deps, outcome.user, outcome.opened) };
}

/** The sign-in the form's RelayState names (SP-initiated), or the one the IdP started (IdP-initiated). */
async function awaitedSignIn(deps: Deps, form: Readonly<Record<string, string>>): Promise<AwaitedSignIn> {
  const relayState = form["RelayState"] ?? "";
  if (isUuid(relayState)) {
    const state = await deps.stores.samlRelayStates.take(relayState);
    if (state === null) {
      throw new AuthError("saml_relay_state_not_found", "SAML RelayState does not exist, try logging in again?");
    }
    const age = deps.clock.now().getTime() - state.createdAt.getTime();
    if (age >= deps.policy.saml.relayStateValiditySeconds * 1000) {
      throw new AuthError("saml_relay_state_expired", "SAML RelayState has expired. Try logging in again?");
    }
    const provider = await deps.stores.ssoProviders.find(state.ssoProviderId);
    if (provider === null) throw new AuthError("sso_provider_not_found", "No such SSO provider");
    const pkce =
      state.codeChallenge !== null && state.codeChallengeMethod !== null
        ? { challenge: state.codeChallenge, method: state.codeChallengeMethod }
        : null;
    return { provider, requestId: state.requestId, redirectTo: state.redirectTo, pkce };
  }
  if (relayState !== "" && !isRequestUri(relayState)) throw invalid("SAML RelayState is not a valid UUID or URL");
  if (!deps.policy.saml.idpInitiatedEnabled) {
    throw invalid("SAML sign-ins started at the identity provider are not accepted; start the sign-in in the app");
  }
  if ((form["SAMLart"] ?? "") !== "") throw invalid("SAML Artifact response can only be used with SP initiated flow");
  const samlResponse = form["SAMLResponse"] ?? "";
  if (samlResponse === "") throw invalid("SAMLResponse is missing");
  const issuer = serviceProvider(deps).peekIssuer(samlResponse);
  const provider = issuer === null ? null : await deps.stores.ssoProviders.findByEntityId(issuer);
  if (provider === null) {
    throw new AuthError("saml_idp_not_found", "A SAML connection has not been established with this Identity Provider");
  }
  // An IdP's RelayState is where it would send the user: allowed as any redirect_to is, else SITE_URL.
  return { provider, requestId: null, redirectTo: chooseRedirect([relayState], deps.policy.redirect), pkce: null };
}

/** An absolute URL or an absolute path, as Go's url.ParseRequestURI takes (GoTrue's test for an IdP's RelayState). */
function isRequestUri(value: string): boolean {
  return value.startsWith("/") || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value);
}

/** Who the assertion says signed in, with the provider's attribute mapping applied. */
function profileOf(provider: SsoProvider, assertion: SamlAssertion) {
  const userId = samlUserId(assertion);
  if (userId === null) {
    throw new AuthError(
      "saml_assertion_no_user_id",
      "SAML Assertion did not contain a persistent Subject Identifier attribute or Subject NameID uniquely identifying this user",
    );
  }
  const claims = mappedClaims(assertion, provider.saml.attributeMapping);
  const email = samlEmail(assertion, claims);
  if (email === null)
    throw new AuthError("saml_assertion_no_email", "SAML Assertion does not contain an email address");
  let address: string;
  try {
    address = normalizeEmail(email.trim());
  } catch {
    throw new AuthError("saml_assertion_no_email", "SAML Assertion does not contain a valid email address");
  }
  return samlProfile({ entityId: provider.saml.entityId, userId, email: address, claims });
}
