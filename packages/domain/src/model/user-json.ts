import type { Factor } from "./factor.ts";
import { type Identity, identityEmail } from "./identity.ts";
import { optionalTimestamp, timestamp } from "./timestamp.ts";
import { confirmedAt, type User } from "./user.ts";

// GoTrue's JSON of a user, as its API answers with it and as its hooks are sent it (their `user`): one shape for
// both, since clients and hooks read the same fields.

/** GoTrue's factor JSON: `friendly_name` omitted when empty, `phone` empty for TOTP, `last_challenged_at` null until one. */
export function presentFactor(factor: Factor) {
  return {
    id: factor.id,
    created_at: timestamp(factor.createdAt),
    updated_at: timestamp(factor.updatedAt),
    status: factor.status,
    ...(factor.friendlyName ? { friendly_name: factor.friendlyName } : {}),
    factor_type: factor.type,
    phone: factor.phone ?? "",
    last_challenged_at: factor.lastChallengedAt === null ? null : timestamp(factor.lastChallengedAt),
    ...(factor.webauthn?.aaguid ? { web_authn_aaguid: factor.webauthn.aaguid } : {}),
  };
}

/** GoTrue's identity JSON; note its swapped names: `identity_id` is the row, `id` the subject at the provider. */
function presentIdentity(identity: Identity) {
  const email = identityEmail(identity);
  return {
    identity_id: identity.id,
    id: identity.providerId,
    user_id: identity.userId,
    ...(Object.keys(identity.identityData).length > 0 ? { identity_data: identity.identityData } : {}),
    provider: identity.provider,
    ...optionalTimestamp("last_sign_in_at", identity.lastSignInAt),
    created_at: timestamp(identity.createdAt),
    updated_at: timestamp(identity.updatedAt),
    ...(email ? { email } : {}),
  };
}

/** GoTrue's user JSON: empty strings for a missing email or phone, absent keys for unset timestamps. */
export function presentUser(user: User) {
  return {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email ?? "",
    ...optionalTimestamp("email_confirmed_at", user.emailConfirmedAt),
    ...optionalTimestamp("invited_at", user.invitedAt),
    phone: user.phone ?? "",
    ...optionalTimestamp("phone_confirmed_at", user.phoneConfirmedAt),
    ...optionalTimestamp("confirmation_sent_at", user.confirmationSentAt),
    ...optionalTimestamp("confirmed_at", confirmedAt(user)),
    ...optionalTimestamp("recovery_sent_at", user.recoverySentAt),
    ...(user.newEmail ? { new_email: user.newEmail } : {}),
    ...optionalTimestamp("email_change_sent_at", user.emailChangeSentAt),
    ...(user.newPhone ? { new_phone: user.newPhone } : {}),
    ...optionalTimestamp("phone_change_sent_at", user.phoneChangeSentAt),
    ...optionalTimestamp("reauthentication_sent_at", user.reauthenticationSentAt),
    ...optionalTimestamp("last_sign_in_at", user.lastSignInAt),
    app_metadata: user.appMetadata,
    user_metadata: user.userMetadata,
    identities: user.identities.map(presentIdentity),
    // Omitted when there are none, as GoTrue does.
    ...(user.factors.length > 0 ? { factors: user.factors.map(presentFactor) } : {}),
    created_at: timestamp(user.createdAt),
    updated_at: timestamp(user.updatedAt),
    ...optionalTimestamp("banned_until", user.bannedUntil),
    ...optionalTimestamp("deleted_at", user.deletedAt),
    is_anonymous: user.isAnonymous,
  };
}
