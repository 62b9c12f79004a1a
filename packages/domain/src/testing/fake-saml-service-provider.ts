import { AuthError } from "../errors.ts";
import type { SamlAssertion, SamlIdpMetadata, SamlNameIdFormat } from "../model/sso-provider.ts";
import type { SamlServiceProvider } from "../ports/saml.ts";

/** An answer an IdP gave, as the fake holds it: the assertion it carries and the request it answers. */
interface Answer {
  readonly assertion: SamlAssertion;
  readonly inResponseTo: string | null;
}

/**
 * A service provider for tests of the use cases: its AuthnRequests are URLs at the IdP naming the request and the
 * relay state, and the "responses" it reads are tokens `answer` made, each standing for an assertion that verifies,
 * answering one request or none (the real checks are adapters-saml's, tested there).
 */
export class FakeSamlServiceProvider implements SamlServiceProvider {
  readonly entityId = "https://auth.example.com/sso/saml/metadata";
  readonly acsUrl = "https://auth.example.com/sso/saml/acs";
  rotating = false;
  /** Every AuthnRequest made, in order. */
  readonly requests: { readonly id: string; readonly relayState: string; readonly nameIdFormat: SamlNameIdFormat }[] =
    [];
  private readonly answers = new Map<string, Answer>();
  private count = 0;

  async metadata(options: { validUntil: Date | null; cacheDurationSeconds: number | null }): Promise<string> {
    const validUntil = options.validUntil ? ` validUntil="${options.validUntil.toISOString()}"` : "";
    const cache = options.cacheDurationSeconds === null ? "" : ` cacheDuration="PT${options.cacheDurationSeconds}S"`;
    return `<EntityDescriptor entityID="${this.entityId}"${validUntil}${cache}/>`;
  }

  async authnRequest(input: { idp: SamlIdpMetadata; relayState: string; nameIdFormat: SamlNameIdFormat }) {
    const id = `_request${++this.count}`;
    this.requests.push({ id, relayState: input.relayState, nameIdFormat: input.nameIdFormat });
    const url = new URL(input.idp.ssoRedirectUrl ?? "https://idp.invalid/sso");
    url.searchParams.set("SAMLRequest", id);
    url.searchParams.set("RelayState", input.relayState);
    return { url: url.toString(), requestId: id };
  }

  /** A SAMLResponse standing for `assertion`, answering `inResponseTo` (null: an IdP-initiated one). */
  answer(assertion: SamlAssertion, inResponseTo: string | null): string {
    const token = `response-${++this.count}`;
    this.answers.set(token, { assertion, inResponseTo });
    return token;
  }

  peekIssuer(samlResponse: string): string | null {
    const answer = this.answers.get(samlResponse);
    if (answer === undefined) throw new AuthError("validation_failed", "SAMLResponse is not a valid Base64 string");
    return answer.assertion.issuer;
  }

  async readAssertion(input: { idp: SamlIdpMetadata; samlResponse: string; inResponseTo: string | null }) {
    const answer = this.answers.get(input.samlResponse);
    const fits =
      answer !== undefined &&
      answer.inResponseTo === input.inResponseTo &&
      answer.assertion.issuer === input.idp.entityId;
    if (!fits) throw new AuthError("validation_failed", "SAML Assertion is not valid");
    return answer.assertion;
  }
}

/** An assertion of `issuer` for a persistent NameID, valid for five minutes from `now`. */
export function samlAssertion(
  issuer: string,
  now: Date,
  fields: Partial<SamlAssertion> & { readonly email?: string } = {},
): SamlAssertion {
  const { email = "ada@acme.example", ...rest } = fields;
  return {
    id: `_assertion-${Math.random().toString(16).slice(2)}`,
    issuer,
    nameId: "ada-persistent-id",
    nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
    attributes: [{ name: "email", friendlyName: null, values: [email] }],
    expiresAt: new Date(now.getTime() + 300_000),
    sessionNotOnOrAfter: null,
    ...rest,
  };
}
