import type { Deps } from "../../deps.ts";
import type { Contact } from "../../model/contact.ts";
import type { Identity } from "../../model/identity.ts";
import { assertMetadataFits, type Metadata } from "../../model/metadata.ts";
import { newUser, type User } from "../../model/user.ts";

/**
 * A new user for an email or phone address, with its identity and GoTrue's identity data (the caller's `data` may
 * add keys but not replace these). Not stored: the caller inserts it.
 */
export function newAccount(
  deps: Deps,
  request: {
    contact: Contact;
    passwordHash: string | null;
    data?: Metadata | null | undefined;
    audience?: string | undefined;
    /** The id of an existing account, to show the shape a signup answers with (see sign-up.ts). */
    id?: string;
  },
): User {
  const { contact } = request;
  const now = deps.clock.now();
  const id = request.id ?? deps.random.uuid();
  const identityData = identityDataOf(id, contact, request.data);
  const identity: Identity = {
    id: deps.random.uuid(),
    userId: id,
    provider: contact.provider,
    providerId: id,
    identityData,
    lastSignInAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return {
    ...newUser({ id, aud: request.audience ?? deps.policy.defaultAudience, role: deps.policy.defaultRole, now }),
    ...(contact.provider === "email"
      ? { email: contact.address, phone: null }
      : { email: null, phone: contact.address }),
    passwordHash: request.passwordHash,
    appMetadata: { provider: contact.provider, providers: [contact.provider] },
    userMetadata: identityData,
    identities: [identity],
  };
}

/** GoTrue's identity data of a new account, also its user_metadata: the caller's `data` and the identity's keys. */
function identityDataOf(id: string, contact: Contact, data: Metadata | null | undefined): Metadata {
  return {
    ...data,
    sub: id,
    ...(contact.provider === "email" ? { email: contact.address } : { phone: contact.address }),
    email_verified: false,
    phone_verified: false,
  };
}

/** Any UUID: all have the same length, so any measures as the account's own will. */
const SOME_UUID = "00000000-0000-0000-0000-000000000000";

/**
 * Refuses `data` that would give a new account for `contact` user_metadata over its limit (see model/metadata.ts).
 * security: depends on nothing stored, so a request for an address someone holds is refused alike.
 */
export function assertNewAccountMetadataFits(contact: Contact, data: Metadata | undefined): void {
  if (data !== undefined) assertMetadataFits("user_metadata", identityDataOf(SOME_UUID, contact, data));
}

/**
 * A new account an admin asks for (an invitation, a generated link), as GoTrue makes it: the admin's `data` alone
 * is the user_metadata, and the identity data holds only its own keys.
 */
export function newAccountForAdmin(
  deps: Deps,
  request: {
    contact: Contact;
    passwordHash: string | null;
    data?: Metadata | undefined;
    audience?: string | undefined;
  },
): User {
  return { ...newAccount(deps, { ...request, data: undefined }), userMetadata: request.data ?? {} };
}
