import type { Identity } from "../model/identity.ts";
import type { Metadata } from "../model/metadata.ts";
import { newUser, type User } from "../model/user.ts";
import type { Channel } from "./confirmation.ts";
import type { Deps } from "./deps.ts";

/**
 * A new user for an email or phone address, with its identity and GoTrue's identity data (the caller's `data` may
 * add keys but not replace these). Not stored: the caller inserts it.
 */
export function newAccount(
  deps: Deps,
  request: {
    channel: Channel;
    passwordHash: string | null;
    data?: Metadata | null | undefined;
    audience?: string | undefined;
    /** The id of an existing account, to show the shape a signup answers with (see sign-up.ts). */
    id?: string;
  },
): User {
  const { channel } = request;
  const now = deps.clock.now();
  const id = request.id ?? deps.random.uuid();
  const identityData: Metadata = {
    ...request.data,
    sub: id,
    ...(channel.provider === "email" ? { email: channel.address } : { phone: channel.address }),
    email_verified: false,
    phone_verified: false,
  };
  const identity: Identity = {
    id: deps.random.uuid(),
    userId: id,
    provider: channel.provider,
    providerId: id,
    identityData,
    lastSignInAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return {
    ...newUser({ id, aud: request.audience ?? deps.policy.defaultAudience, role: deps.policy.defaultRole, now }),
    ...(channel.provider === "email" ? { email: channel.address, phone: null } : { email: null, phone: channel.address }),
    passwordHash: request.passwordHash,
    appMetadata: { provider: channel.provider, providers: [channel.provider] },
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
  request: { channel: Channel; passwordHash: string | null; data?: Metadata | undefined; audience?: string | undefined },
): User {
  return { ...newAccount(deps, { ...request, data: undefined }), userMetadata: request.data ?? {} };
}

/**
 * The user with the user_metadata a request chose added, in user_metadata and in its address's identity data, as
 * GoTrue stores a signup's data; keys already there (the identity's own: sub, email, email_verified, ...) win.
 */
export function withChosenMetadata(user: User, chosen: Metadata | null | undefined): User {
  if (!chosen || Object.keys(chosen).length === 0) return user;
  const contact = user.email !== null ? "email" : "phone";
  return {
    ...user,
    userMetadata: { ...chosen, ...user.userMetadata },
    identities: user.identities.map((identity) =>
      identity.provider === contact ? { ...identity, identityData: { ...chosen, ...identity.identityData } } : identity,
    ),
  };
}
