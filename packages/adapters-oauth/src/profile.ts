import type { ProviderEmail, ProviderProfile } from "@latchkey/domain";
import type { JWTPayload } from "jose";
import { claimsOf, fieldsOf, providerFailure, stringOf } from "./http/provider-http.ts";

/** A profile as GoTrue stores every identity: the subject also as `sub` and `provider_id`, empty claims left out. */
export function profileOf(
  subject: string,
  iss: unknown,
  claims: Record<string, unknown>,
  emails: readonly ProviderEmail[],
): ProviderProfile {
  return { subject, claims: claimsOf({ iss, sub: subject, provider_id: subject, ...claims }), emails };
}

/** A verified id_token's profile: its own `iss` and `sub` (the verifier refuses a token without `sub`). */
export function idTokenProfile(
  token: JWTPayload,
  claims: Record<string, unknown>,
  emails: readonly ProviderEmail[],
): ProviderProfile {
  return profileOf(token.sub ?? "", token.iss, claims, emails);
}

/** The one address a provider reports, as the primary one; none when it reports none (EMAIL_OPTIONAL decides). */
export function onlyAddress(address: string | undefined, verified: boolean): ProviderEmail[] {
  return address === undefined ? [] : [{ address, verified, primary: true }];
}

/** Every address of an email-list endpoint, each with the verified and primary flags under the provider's keys. */
export function listedAddresses(entries: unknown, flags: { verified: string; primary: string }): ProviderEmail[] {
  return (Array.isArray(entries) ? entries : []).flatMap((entry): ProviderEmail[] => {
    const fields = fieldsOf(entry);
    const address = stringOf(fields["email"]);
    return address === undefined
      ? []
      : [{ address, verified: fields[flags.verified] === true, primary: fields[flags.primary] === true }];
  });
}

/** The name parts present, joined by spaces; undefined when there is none, so that no empty name is stored. */
export function fullName(...parts: (string | undefined)[]): string | undefined {
  const present = parts.filter((part) => part !== undefined && part !== "");
  return present.length > 0 ? present.join(" ") : undefined;
}

/** `custom_claims`, or undefined when there are none, so that an empty object is not stored. */
export function customClaims(claims: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(claims).length > 0 ? claims : undefined;
}

/** The user's id at the provider; a profile without one names nobody, so the sign-in fails. */
export function requiredSubject(
  provider: string,
  id: string | undefined,
  message = "answered a user without an id",
): string {
  if (id === undefined) throw providerFailure(provider, "profile", message);
  return id;
}
