import type { Factor, Identity, Metadata, User } from "@latchkey/domain";
import type { UsersTable } from "../schema/users.ts";
import { fromOptionalTimestampJson, fromTimestampJson } from "./timestamp-json.ts";

export type UserRow = UsersTable["$inferSelect"];

/** A user as `row_to_json` renders its row: column names as keys, timestamps as ISO 8601 strings. */
export interface UserJson {
  readonly id: string;
  readonly aud: string;
  readonly role: string;
  readonly email: string | null;
  readonly phone: string | null;
  readonly password_hash: string | null;
  readonly email_confirmed_at: string | null;
  readonly phone_confirmed_at: string | null;
  readonly invited_at: string | null;
  readonly confirmation_sent_at: string | null;
  readonly recovery_sent_at: string | null;
  readonly new_email: string | null;
  readonly email_change_sent_at: string | null;
  readonly email_change_confirmed_by: "current" | "new" | null;
  readonly new_phone: string | null;
  readonly phone_change_sent_at: string | null;
  readonly reauthentication_sent_at: string | null;
  readonly last_sign_in_at: string | null;
  readonly app_metadata: Metadata;
  readonly user_metadata: Metadata;
  readonly banned_until: string | null;
  readonly is_anonymous: boolean;
  readonly is_sso_user: boolean;
  readonly created_at: string;
  readonly updated_at: string;
  readonly deleted_at: string | null;
}

/** The user's columns; its identities and factors live in tables of their own. */
export function toUserRow(user: User): UserRow {
  return {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email,
    phone: user.phone,
    passwordHash: user.passwordHash,
    emailConfirmedAt: user.emailConfirmedAt,
    phoneConfirmedAt: user.phoneConfirmedAt,
    invitedAt: user.invitedAt,
    confirmationSentAt: user.confirmationSentAt,
    recoverySentAt: user.recoverySentAt,
    newEmail: user.newEmail,
    emailChangeSentAt: user.emailChangeSentAt,
    emailChangeConfirmedBy: user.emailChangeConfirmedBy,
    newPhone: user.newPhone,
    phoneChangeSentAt: user.phoneChangeSentAt,
    reauthenticationSentAt: user.reauthenticationSentAt,
    lastSignInAt: user.lastSignInAt,
    appMetadata: user.appMetadata,
    userMetadata: user.userMetadata,
    bannedUntil: user.bannedUntil,
    isAnonymous: user.isAnonymous,
    isSsoUser: user.isSsoUser,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
    deletedAt: user.deletedAt,
  };
}

/** The domain's User from its row, its identities and its factors, each oldest first. */
export function fromUserRow(row: UserRow, identities: readonly Identity[], factors: readonly Factor[]): User {
  return { ...row, identities, factors };
}

/**
 * The domain's User from its row's `row_to_json` rendering, its identities and its factors, each oldest first: built
 * in one object, where going through the row and copying it (fromUserRow) would build two (every authenticated
 * request decodes a user).
 */
export function fromUserJson(json: UserJson, identities: readonly Identity[], factors: readonly Factor[]): User {
  return {
    id: json.id,
    aud: json.aud,
    role: json.role,
    email: json.email,
    phone: json.phone,
    passwordHash: json.password_hash,
    emailConfirmedAt: fromOptionalTimestampJson(json.email_confirmed_at),
    phoneConfirmedAt: fromOptionalTimestampJson(json.phone_confirmed_at),
    invitedAt: fromOptionalTimestampJson(json.invited_at),
    confirmationSentAt: fromOptionalTimestampJson(json.confirmation_sent_at),
    recoverySentAt: fromOptionalTimestampJson(json.recovery_sent_at),
    newEmail: json.new_email,
    emailChangeSentAt: fromOptionalTimestampJson(json.email_change_sent_at),
    emailChangeConfirmedBy: json.email_change_confirmed_by,
    newPhone: json.new_phone,
    phoneChangeSentAt: fromOptionalTimestampJson(json.phone_change_sent_at),
    reauthenticationSentAt: fromOptionalTimestampJson(json.reauthentication_sent_at),
    lastSignInAt: fromOptionalTimestampJson(json.last_sign_in_at),
    appMetadata: json.app_metadata,
    userMetadata: json.user_metadata,
    bannedUntil: fromOptionalTimestampJson(json.banned_until),
    isAnonymous: json.is_anonymous,
    isSsoUser: json.is_sso_user,
    createdAt: fromTimestampJson(json.created_at),
    updatedAt: fromTimestampJson(json.updated_at),
    deletedAt: fromOptionalTimestampJson(json.deleted_at),
    identities,
    factors,
  };
}
