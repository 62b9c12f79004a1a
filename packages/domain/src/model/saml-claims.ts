import type { Metadata } from "./metadata.ts";
import { PROFILE_TEXT_CLAIMS, type ProviderProfile } from "./provider-profile.ts";
import type { SamlAssertion, SamlAttributeMapping } from "./sso-provider.ts";

// Who a SAML assertion says signed in, as GoTrue reads it (docs/compatibility.md, "Single sign-on").

/** The attribute that names the user for good, ahead of the NameID (SAML's subject-id profile). */
const SUBJECT_ID_ATTRIBUTE = "urn:oasis:names:tc:SAML:attribute:subject-id";
const EMAIL_NAME_ID = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const TRANSIENT_NAME_ID = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient";

/** Attributes that carry an address in the usual IdPs, tried in this order when the mapping names no `email`. */
const EMAIL_ATTRIBUTES = [
  "urn:oid:0.9.2342.19200300.100.1.3",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
  "http://schemas.xmlsoap.org/claims/EmailAddress",
  "mail",
  "Mail",
  "email",
];

/** Claims GoTrue keeps at the top of identity_data (its provider.Claims), when the mapping gives them as text. */
const STANDARD_CLAIMS: ReadonlySet<string> = new Set([...PROFILE_TEXT_CLAIMS, "provider_id"]);

/** Claims the sign-in sets itself, whatever the mapping says. */
const SET_BY_THE_SIGN_IN: ReadonlySet<string> = new Set(["iss", "sub", "email", "email_verified", "phone_verified"]);

/** Every value of the attributes whose Name or FriendlyName is `name`, compared without regard to case. */
function attributeValues(assertion: SamlAssertion, name: string): string[] {
  const wanted = name.toLowerCase();
  return assertion.attributes
    .filter((attribute) => attribute.name.toLowerCase() === wanted || attribute.friendlyName?.toLowerCase() === wanted)
    .flatMap((attribute) => attribute.values);
}

/**
 * The user's lasting id at the IdP: the subject-id attribute, else the NameID unless it is transient (an
 * emailAddress NameID trimmed and lower-cased, as addresses are compared); null when there is none.
 */
export function samlUserId(assertion: SamlAssertion): string | null {
  const subjectId = attributeValues(assertion, SUBJECT_ID_ATTRIBUTE)[0];
  if (subjectId !== undefined && subjectId !== "") return subjectId;
  const { nameId, nameIdFormat } = assertion;
  if (nameId === null || nameId === "" || nameIdFormat === TRANSIENT_NAME_ID) return null;
  return nameIdFormat === EMAIL_NAME_ID ? nameId.trim().toLowerCase() : nameId;
}

/**
 * The claims the provider's attribute mapping makes of the assertion: for each key, the first of its attributes
 * (`name`, then `names`) that has a non-empty value gives it (every such value of that attribute with `array`),
 * else its `default` when it has one.
 */
export function mappedClaims(assertion: SamlAssertion, mapping: SamlAttributeMapping): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(mapping.keys ?? {})) {
    const names = [...(rule.name ? [rule.name] : []), ...(rule.names ?? [])];
    for (const name of names) {
      const values = attributeValues(assertion, name).filter((value) => value !== "");
      if (values.length === 0) continue;
      claims[key] = rule.array ? values : values[0];
      break;
    }
    if (!(key in claims) && rule.default !== undefined) claims[key] = rule.default;
  }
  return claims;
}

/** The address of the sign-in: the mapped `email`, else a usual email attribute, else an emailAddress NameID. */
export function samlEmail(assertion: SamlAssertion, claims: Readonly<Record<string, unknown>>): string | null {
  const mapped = claims["email"];
  if (typeof mapped === "string" && mapped !== "") return mapped;
  for (const name of EMAIL_ATTRIBUTES) {
    const value = attributeValues(assertion, name).find((each) => each !== "");
    if (value !== undefined) return value;
  }
  if (assertion.nameIdFormat === EMAIL_NAME_ID && assertion.nameId) return assertion.nameId;
  return null;
}

/**
 * The sign-in as a provider profile: `iss` the IdP's EntityID, `sub` the user id, the standard claims the mapping
 * gave as text at the top, every other mapped claim under `custom_claims`, and the address verified (the IdP
 * vouches for it).
 */
export function samlProfile(input: {
  readonly entityId: string;
  readonly userId: string;
  readonly email: string;
  readonly claims: Readonly<Record<string, unknown>>;
}): ProviderProfile {
  const standard: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input.claims)) {
    if (SET_BY_THE_SIGN_IN.has(key)) continue;
    if (STANDARD_CLAIMS.has(key) && typeof value === "string") standard[key] = value;
    else custom[key] = value;
  }
  const claims: Metadata = {
    iss: input.entityId,
    sub: input.userId,
    ...standard,
    ...(Object.keys(custom).length > 0 ? { custom_claims: custom } : {}),
  };
  return { subject: input.userId, claims, emails: [{ address: input.email, verified: true, primary: true }] };
}
