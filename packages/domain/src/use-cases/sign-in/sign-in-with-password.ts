import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, isAuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { isVerifiablePassword } from "../../model/password-policy.ts";
import { normalizePhone } from "../../model/phone.ts";
import { isBanned, isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";
import {
  forgetPasswordFailures,
  refundPasswordAttempt,
  takePasswordAttempt,
} from "../../services/abuse/password-failures.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { signInWeakness } from "../../services/accounts/password-strength.ts";
import { auditEntry } from "../../services/audit.ts";
import { passwordAttempt } from "../../services/hooks/verification-attempts.ts";
import { accessClaims, grantSignIn, inSessionWrite, newSession } from "../../services/sessions.ts";

export interface SignInWithPasswordInput {
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly password: string;
  readonly context: RequestContext;
}

export async function signInWithPassword(deps: Deps, input: SignInWithPasswordInput): Promise<SessionGrant> {
  await limitPerClient(deps, "token", input.context);
  const address = addressOf(deps, input);
  // Counted as a failure, and refused once the address has failed too often, before the lookup and the hashing.
  const attempt = await takePasswordAttempt(deps, address);
  const user = await findUser(deps, address);
  // security: the same answer, after the same work, whether the account is missing, has no password or the
  // password is wrong, each a failure of the address; the ban is told only to whoever knows the password.
  if (!user) {
    await deps.hasher.verifyNothing(input.password);
    throw new AuthError("invalid_credentials", messages.invalidLogin);
  }
  const checked = await checkPassword(deps, user, input);
  if (!checked.ok) throw new AuthError("invalid_credentials", messages.invalidLogin);

  const now = deps.clock.now();
  const hasEmail = "email" in address;
  // The right password, even where the account is refused below (banned, unconfirmed): no failure.
  if (isBanned(user, now) || (hasEmail ? !isEmailConfirmed(user) : !isPhoneConfirmed(user))) {
    await refundPasswordAttempt(deps, attempt);
  }
  if (isBanned(user, now)) throw new AuthError("user_banned", messages.userBanned);
  if (hasEmail && !isEmailConfirmed(user)) throw new AuthError("email_not_confirmed", "Email not confirmed");
  if (!hasEmail && !isPhoneConfirmed(user)) throw new AuthError("phone_not_confirmed", "Phone not confirmed");

  const rehash = checked.needsRehash ? await deps.hasher.hash(input.password) : undefined;
  const signedIn: User = { ...user, passwordHash: rehash ?? checked.verifiedHash, lastSignInAt: now };
  const grant = await openPasswordSession(deps, { signedIn, verifiedHash: checked.verifiedHash, rehash, input });
  await forgetPasswordFailures(deps, attempt);
  const weakPassword = await signInWeakness(deps, input.password);
  return weakPassword ? { ...grant, weakPassword } : grant;
}

/** The one address signed in with, checked against what the providers allow. */
function addressOf(deps: Deps, input: SignInWithPasswordInput): { email: string } | { phone: string } {
  const { signup } = deps.policy;
  const hasEmail = input.email !== undefined && input.email !== "";
  const hasPhone = input.phone !== undefined && input.phone !== "";
  if (hasEmail && hasPhone) {
    throw new AuthError("validation_failed", "Only an email address or phone number should be provided on login.");
  }
  if (hasEmail && !signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email logins are disabled");
  if (hasPhone && !signup.phoneEnabled) throw new AuthError("phone_provider_disabled", "Phone logins are disabled");
  if (!hasEmail && !hasPhone) throw new AuthError("validation_failed", "missing email or phone");
  return hasEmail ? { email: input.email! } : { phone: input.phone! };
}

type CheckedPassword =
  | { readonly ok: true; readonly verifiedHash: string; readonly needsRehash: boolean }
  | { readonly ok: false };

/**
 * Whether the password is the user's (an account without one never matches), told to the
 * password_verification_attempt hook, which may reject it either way (GoTrue calls it for every found user).
 */
async function checkPassword(deps: Deps, user: User, input: SignInWithPasswordInput): Promise<CheckedPassword> {
  const verifiedHash = user.passwordHash;
  let checked: CheckedPassword = { ok: false };
  if (verifiedHash === null || !isVerifiablePassword(input.password)) {
    await deps.hasher.verifyNothing(input.password);
  } else {
    const verification = await deps.hasher.verify(verifiedHash, input.password);
    if (verification.ok) checked = { ok: true, verifiedHash, needsRehash: verification.needsRehash };
  }
  const verdict = await passwordAttempt(deps, { user, valid: checked.ok, context: input.context });
  if (verdict.kind === "reject") {
    if (verdict.signOutEverywhere) await deps.stores.sessions.deleteAllOfUser(user.id);
    throw verdict.error;
  }
  return checked;
}

/** What the session of a password sign-in is written with: the user signed in, the hash checked, a new one. */
interface PasswordSession {
  readonly signedIn: User;
  readonly verifiedHash: string;
  readonly rehash: string | undefined;
  readonly input: SignInWithPasswordInput;
}

/**
 * Opens the session in one statement, no transaction around it (unless a hook makes the claims): the sign-in is
 * recorded only if the password verified is still the user's, and a password changed since then is not undone.
 */
async function openPasswordSession(deps: Deps, request: PasswordSession): Promise<SessionGrant> {
  const { signedIn, verifiedHash, rehash, input } = request;
  const opened = newSession(deps, signedIn, { method: "password", context: input.context });
  const traits = { provider: input.email ? "email" : "phone" };
  const audit = auditEntry(deps, { action: "login", actor: signedIn, context: input.context, traits });
  const written = { at: signedIn.lastSignInAt!, verifiedHash, rehash };
  const claims = await inSessionWrite(deps, async (stores) => {
    if (!(await stores.sessions.openWithPassword(written, opened.session, opened.firstToken, [audit]))) return null;
    const issuance = { user: signedIn, session: opened.session, method: "password", context: input.context };
    return accessClaims(deps, stores, issuance);
  });
  if (claims === null) throw new AuthError("invalid_credentials", messages.invalidLogin);
  return grantSignIn(deps, signedIn, { ...opened, claims });
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
