import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { bannedUntil, parseBanDuration } from "../../model/ban.ts";
import { normalizeEmail } from "../../model/email.ts";
import { assertImportableHash } from "../../model/imported-hash.ts";
import { assertMetadataFits, type Metadata, mergeMetadata } from "../../model/metadata.ts";
import { oldestFirst } from "../../model/oldest-first.ts";
import { normalizePhone } from "../../model/phone.ts";
import { confirmEmail, confirmPhone, newUser, type User, withContactIdentity } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import { assertPasswordStrong } from "../../services/accounts/password-strength.ts";
import { NO_USER_ID, recordAdminAudit } from "../../services/audit.ts";

export interface AdminCreateUserInput {
  readonly admin: AdminPrincipal;
  /** The new user's id, when the caller chooses it (from the path or the body). */
  readonly id?: string | undefined;
  readonly aud?: string | undefined;
  readonly role?: string | undefined;
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly password?: string | undefined;
  /** A bcrypt or argon2 hash from another system, instead of `password`. */
  readonly passwordHash?: string | undefined;
  readonly emailConfirm?: boolean | undefined;
  readonly phoneConfirm?: boolean | undefined;
  readonly userMetadata?: Metadata | undefined;
  readonly appMetadata?: Metadata | undefined;
  readonly banDuration?: string | undefined;
  /** X-JWT-AUD, used when the body names no `aud`. */
  readonly audience?: string | undefined;
  readonly context: RequestContext;
}

/**
 * POST /admin/users: a user with an email and/or phone (each with its identity), confirmed at once when asked,
 * and no mail sent. Either address already held by another user is refused with GoTrue's code.
 */
export async function adminCreateUser(deps: Deps, input: AdminCreateUserInput): Promise<User> {
  const email = input.email ? normalizeEmail(input.email) : null;
  const phone = input.phone ? normalizePhone(input.phone) : null;
  if (email === null && phone === null)
    throw new AuthError("validation_failed", "Cannot create a user without either an email or phone");
  if (input.id !== undefined && (!isUuid(input.id) || input.id === NO_USER_ID)) {
    throw new AuthError("validation_failed", "user id must be a valid, non-nil UUID");
  }
  if (input.password !== undefined && input.passwordHash !== undefined) {
    throw new AuthError("validation_failed", "Only a password or a password hash should be provided");
  }
  if (input.password !== undefined) await assertPasswordStrong(deps, input.password);
  if (input.passwordHash !== undefined) assertImportableHash(input.passwordHash);
  const ban = input.banDuration === undefined ? null : parseBanDuration(input.banDuration);
  if (input.id !== undefined && (await deps.stores.users.findById(input.id))) {
    throw new AuthError("user_already_exists", "A user with this ID already exists");
  }
  const passwordHash =
    input.password !== undefined ? await deps.hasher.hash(input.password) : (input.passwordHash ?? null);

  const now = deps.clock.now();
  const id = input.id ?? deps.random.uuid();
  const base: User = {
    ...newUser({
      id,
      aud: input.aud || input.audience || deps.policy.defaultAudience,
      role: input.role || deps.policy.defaultRole,
      now,
    }),
    email,
    phone,
    passwordHash,
    userMetadata: input.userMetadata ?? {},
    bannedUntil: ban ? bannedUntil(ban, now) : null,
  };
  let user = base;
  if (email !== null) user = withContactIdentity(user, "email", deps.random.uuid(), now);
  if (phone !== null) user = withContactIdentity(user, "phone", deps.random.uuid(), now);
  if (email !== null && input.emailConfirm) user = confirmEmail(user, now);
  if (phone !== null && input.phoneConfirm) user = confirmPhone(user, now);
  if (input.appMetadata) user = { ...user, appMetadata: mergeMetadata(user.appMetadata, input.appMetadata) };
  const created = user;
  assertMetadataFits("user_metadata", created.userMetadata);
  assertMetadataFits("app_metadata", created.appMetadata);

  await deps.tx.run(async (stores) => {
    await stores.users.insert(created);
    await recordAdminAudit(deps, stores, {
      action: "user_signedup",
      admin: input.admin,
      target: created,
      context: input.context,
    });
  });
  // As a read of it will list them.
  return { ...created, identities: oldestFirst(created.identities) };
}
