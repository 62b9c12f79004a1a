import type { Identity, User } from "@latchkey/domain";
import type { UsersTable } from "../schema/users.ts";

export type UserRow = UsersTable["$inferSelect"];

/** The user's columns; its identities live in their own table. */
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
    newPhone: user.newPhone,
    phoneChangeSentAt: user.phoneChangeSentAt,
    reauthenticationSentAt: user.reauthenticationSentAt,
    lastSignInAt: user.lastSignInAt,
    appMetadata: user.appMetadata,
    userMetadata: user.userMetadata,
    bannedUntil: user.bannedUntil,
    isAnonymous: user.isAnonymous,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
    deletedAt: user.deletedAt,
  };
}

/** The domain's User from its row and its identities, oldest first. */
export function fromUserRow(row: UserRow, identities: readonly Identity[]): User {
  return { ...row, identities };
}
