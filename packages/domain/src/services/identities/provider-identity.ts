import { chooseProviderEmail } from "../../model/account-linking.ts";
import type { Identity } from "../../model/identity.ts";
import type { Metadata } from "../../model/metadata.ts";
import type { ProviderEmail, ProviderProfile } from "../../model/provider-profile.ts";

/** What a provider sign-in says of the person: the address it goes by and the identity's data. */
export interface ProviderIdentityData {
  readonly chosen: ProviderEmail | null;
  /** The chosen address, lower-cased. */
  readonly email: string | null;
  /** GoTrue's identity_data: the claims, with the chosen email and both verified flags always present. */
  readonly identityData: Metadata;
}

export function providerIdentityData(profile: ProviderProfile): ProviderIdentityData {
  const chosen = chooseProviderEmail(profile.emails);
  const email = chosen?.address.toLowerCase() ?? null;
  return {
    chosen,
    email,
    identityData: {
      ...profile.claims,
      ...(email === null ? {} : { email }),
      email_verified: chosen?.verified ?? false,
      phone_verified: profile.claims["phone_verified"] === true,
    },
  };
}

/** The identity of the sign-in for `userId`, replacing `existing` (same row, same creation) when there is one. */
export function providerIdentity(input: {
  readonly id: string;
  readonly userId: string;
  readonly provider: string;
  readonly profile: ProviderProfile;
  readonly identityData: Metadata;
  readonly now: Date;
  readonly existing?: Identity | null | undefined;
}): Identity {
  return {
    id: input.existing?.id ?? input.id,
    userId: input.userId,
    provider: input.provider,
    providerId: input.profile.subject,
    identityData: input.identityData,
    lastSignInAt: input.now,
    createdAt: input.existing?.createdAt ?? input.now,
    updatedAt: input.now,
  };
}
