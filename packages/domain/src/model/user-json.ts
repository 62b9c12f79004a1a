import type { Factor } from "./factor.ts";
import { type Identity, identityEmail } from "./identity.ts";
import { optionalTimestamp, timestamp } from "./timestamp.ts";
import { confirmedAt, type User } from "./user.ts";

// GoTrue's JSON of a user, as its API answers with it and as its hooks are sent it (their `user`): one shape for
// both, since clients and hooks read the same fields. A key GoTrue omits is undefined here, which JSON.stringify
// leaves out: every user's JSON then has the same keys in the same order, which V8 builds and serialises several
// times faster than objects spread together from optional parts (every GET /user and refresh presents one).

/** GoTrue's factor JSON: `friendly_name` omitted when empty, `phone` empty for TOTP, `last_challenged_at` null until one. */
export function presentFactor(factor: Factor) {
  return {
    id: factor.id,
    created_at: timestamp(factor.createdAt),
    updated_at: timestamp(factor.updatedAt),
    status: factor.status,
    friendly_name: factor.friendlyName || undefined,
    factor_type: factor.type,
    phone: factor.phone ?? "",
    last_challenged_at: factor.lastChallengedAt === null ? null : timestamp(factor.lastChallengedAt),
    web_authn_aaguid: factor.webauthn?.aaguid || undefined,
  };
}

/** GoTrue's identity JSON; note its swapped names: `identity_id` is the row, `id` the subject at the provider. */
function presentIdentity(identity: Identity) {
  const email = identityEmail(identity);
  return {
    identity_id: identity.id,
    id: identity.providerId,
    user_id: identity.userId,
    identity_data: Object.keys(identity.identityData).length > 0 ? identity.identityData : undefined,
    provider: identity.provider,
    last_sign_in_at: optionalTimestamp(identity.lastSignInAt),
    created_at: timestamp(identity.createdAt),
    updated_at: timestamp(identity.updatedAt),
    email: email || undefined,
  };
}

/** GoTrue's user JSON: empty strings for a missing email or phone, absent keys for unset timestamps. */
export function presentUser(user: User) {
  return {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email ?? "",
    email_confirmed_at: optionalTimestamp(user.emailConfirmedAt),
    invited_at: optionalTimestamp(user.invitedAt),
    phone: user.phone ?? "",
    phone_confirmed_at: optionalTimestamp(user.phoneConfirmedAt),
    confirmation_sent_at: optionalTimestamp(user.confirmationSentAt),
    confirmed_at: optionalTimestamp(confirmedAt(user)),
    recovery_sent_at: optionalTimestamp(user.recoverySentAt),
    new_email: user.newEmail || undefined,
    email_change_sent_at: optionalTimestamp(user.emailChangeSentAt),
    new_phone: user.newPhone || undefined,
    phone_change_sent_at: optionalTimestamp(user.phoneChangeSentAt),
    reauthentication_sent_at: optionalTimestamp(user.reauthenticationSentAt),
    last_sign_in_at: optionalTimestamp(user.lastSignInAt),
    app_metadata: user.appMetadata,
    user_metadata: user.userMetadata,
    identities: user.identities.map(presentIdentity),
    // Omitted when there are none, as GoTrue does.
    factors: user.factors.length > 0 ? user.factors.map(presentFactor) : undefined,
    created_at: timestamp(user.createdAt),
    updated_at: timestamp(user.updatedAt),
    banned_until: optionalTimestamp(user.bannedUntil),
    deleted_at: optionalTimestamp(user.deletedAt),
    is_anonymous: user.isAnonymous,
  };
}
