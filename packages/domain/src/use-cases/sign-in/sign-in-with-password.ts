import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, isAuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { assertPasswordAcceptable, isVerifiablePassword } from "../../model/password-policy.ts";
import { normalizePhone } from "../../model/phone.ts";
import { isBanned, isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";
import {
  forgetPasswordFailures,
  refundPasswordAttempt,
  takePasswordAttempt,
} from "../../services/abuse/password-failures.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { auditEntry } from "../../services/audit.ts";
import { grantSignIn, newSession } from "../../services/sessions.ts";

export interface SignInWithPasswordInput {
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly password: string;
  readonly context: RequestContext;
}

export async function signInWithPassword(deps: Deps, input: SignInWithPasswordInput): Promise<SessionGrant> {
  await limitPerClient(deps, "token", input.context);
  const { signup } = deps.policy;
  const hasEmail = input.email !== undefined && input.email !== "";
  const hasPhone = input.phone !== undefined && input.phone !== "";
  if (hasEmail && hasPhone) {
    throw new AuthError("validation_failed", "Only an email address or phone number should be provided on login.");
  }
  if (hasEmail && !signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email logins are disabled");
  if (hasPhone && !signup.phoneEnabled) throw new AuthError("phone_provider_disabled", "Phone logins are disabled");
  if (!hasEmail && !hasPhone) throw new AuthError("validation_failed", "missing email or phone");

  const address = hasEmail ? { email: input.email! } : { phone: input.phone! };
  // Counted as a failure, and refused once the address has failed too often, before the lookup and the hashing.
  const attempt = await takePasswordAttempt(deps, address);
  const user = await findUser(deps, address);
  // security: the same answer, after the same work, whether the account is missing, has no password or the
  // password is wrong, each a failure of the address; the ban is told only to whoever knows the password.
  if (!user || user.passwordHash === null || !isVerifiablePassword(input.password)) {
    await deps.hasher.verifyNothing(input.password);
    throw new AuthError("invalid_credentials", messages.invalidLogin);
  }
  const verifiedHash = user.passwordHash;
  const verification = await deps.hasher.verify(verifiedHash, input.password);
  if (!verification.ok) throw new AuthError("invalid_credentials", messages.invalidLogin);

  const now = deps.clock.now();
  // The right password, even where the account is refused below (banned, unconfirmed): no failure.
  if (isBanned(user, now) || (hasEmail && !isEmailConfirmed(user)) || (hasPhone && !isPhoneConfirmed(user))) {
    await refundPasswordAttempt(deps, attempt);
  }
  if (isBanned(user, now)) throw new AuthError("user_banned", messages.userBanned);
  if (hasEmail && !isEmailConfirmed(user)) throw new AuthError("email_not_confirmed", "Email not confirmed");
  if (hasPhone && !isPhoneConfirmed(user)) throw new AuthError("phone_not_confirmed", "Phone not confirmed");

  const rehash = verification.needsRehash ? await deps.hasher.hash(input.password) : undefined;
  const signedIn: User = { ...user, passwordHash: rehash ?? verifiedHash, lastSignInAt: now };
  const opened = newSession(deps, signedIn, "password", input.context);
  const traits = { provider: hasEmail ? "email" : "phone" };
  const audit = auditEntry(deps, { action: "login", actor: signedIn, context: input.context, traits });
  // One statement, no transaction around it: the sign-in is recorded only if the password verified is still the
  // user's, and a password changed since then is not undone.
  const recorded = await deps.stores.sessions.openWithPassword(
    { at: now, verifiedHash, rehash },
    opened.session,
    opened.firstToken,
    [audit],
  );
  if (!recorded) throw new AuthError("invalid_credentials", messages.invalidLogin);
  await forgetPasswordFailures(deps, attempt);
  const grant = await grantSignIn(deps, signedIn, opened);
  const weakPassword = weaknessOf(deps, input.password);
  return weakPassword ? { ...grant, weakPassword } : grant;
}

/** An address that cannot be valid belongs to nobody: it fails like an unknown one. */
async function findUser(deps: Deps, by: { email: string } | { phone: string }): Promise<User | null> {
  try {
    return "email" in by
      ? await deps.stores.users.findByEmail(normalizeEmail(by.email))
      : await deps.stores.users.findByPhone(normalizePhone(by.phone));
  } catch (error) {
    if (isAuthError(error, "validation_failed")) return null;
    throw error;
  }
}

function weaknessOf(deps: Deps, password: string): SessionGrant["weakPassword"] {
  try {
    assertPasswordAcceptable(password, deps.policy.password);
    return undefined;
  } catch (error) {
    if (!isAuthError(error)) throw error;
    const reasons = error.details?.["reasons"];
    return { message: error.message, reasons: Array.isArray(reasons) ? reasons : [] };
  }
}
