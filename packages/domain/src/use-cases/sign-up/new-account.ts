import type { Contact } from "../../model/contact.ts";
import type { Identity } from "../../model/identity.ts";
import type { Metadata } from "../../model/metadata.ts";
import { newUser, type User } from "../../model/user.ts";
import type { Deps } from "../deps.ts";

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
  const identityData: Metadata = {
    ...request.data,
    sub: id,
    ...(contact.provider === "email" ? { email: contact.address } : { phone: contact.address }),
    email_verified: false,
    phone_verified: false,
  };
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
