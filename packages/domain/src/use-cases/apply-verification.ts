import { AuthError } from "../errors.ts";
import type { OneTimeToken } from "../model/one-time-token.ts";
import type { AuthMethod } from "../model/session.ts";
import { confirmEmail, isEmailConfirmed, isPhoneConfirmed, type User, withContactIdentity } from "../model/user.ts";
import type { Stores } from "../ports/stores.ts";
import type { AuditAction } from "../model/audit.ts";
import { recordAudit } from "./audit.ts";
import type { Deps, RequestContext } from "./deps.ts";
import { queueNotification } from "./notifications.ts";

export type Applied =
  | { readonly kind: "applied"; readonly user: User; readonly method: AuthMethod }
  | { readonly kind: "awaiting_other_address" };

interface Verified {
  readonly user: User;
  readonly token: OneTimeToken;
  /** POST /verify of a signup: an account without a password must be given one. */
  readonly requiresPassword: boolean;
  readonly newPasswordHash: string | undefined;
  readonly context: RequestContext;
}

const emailChangeInvalid = () => new AuthError("otp_expired", "Email link is invalid or has expired");

/**
 * Does what a verified email token was issued for, in the caller's transaction: confirm the address (signup,
 * invite, and any sign-in by mail proves the mailbox), or complete an email change once both addresses agreed.
 */
export async function applyVerification(deps: Deps, stores: Stores, verified: Verified): Promise<Applied> {
  const { token } = verified;
  switch (token.kind) {
    case "confirmation":
      return signIn(deps, stores, verified, "signup", "email/signup", "user_signedup");
    case "invite":
      return signIn(deps, stores, verified, "invite", "invite", "invite_accepted");
    case "magic_link":
      return signIn(deps, stores, verified, "sign_in", "magiclink", "login");
    case "recovery":
      return signIn(deps, stores, verified, "sign_in", "recovery", "login");
    case "email_change_new":
    case "email_change_current":
      return changeEmail(deps, stores, verified);
    default:
      // Phone and reauthentication codes are not verified here.
      throw new AuthError("otp_expired", "Token has expired or is invalid");
  }
}

/** Whether any of the account's addresses has been proven: until one is, anyone may have set its password. */
function isProven(user: User): boolean {
  return isEmailConfirmed(user) || isPhoneConfirmed(user);
}

/**
 * The account's password once the token is verified. security: a password set on an account none of whose
 * addresses was proven may be anyone's (pre-account hijacking), so proving the address replaces it with the one
 * the verified mail carried (its signup's choice), else the one given with the code, else none. A proven account
 * keeps its password; the spec's POST /verify of a signup or invite may set one where there is none, and a signup
 * verified so must.
 */
function passwordAfter(verified: Verified, purpose: "signup" | "invite" | "sign_in"): string | null {
  const { user, token } = verified;
  const given = purpose === "sign_in" ? undefined : verified.newPasswordHash;
  const password = (isProven(user) ? user.passwordHash : token.passwordHash) ?? given ?? null;
  if (password === null && purpose === "signup" && verified.requiresPassword) {
    throw new AuthError("validation_failed", "Signup verification requires a password for an account that has none");
  }
  return password;
}

async function signIn(
  deps: Deps,
  stores: Stores,
  verified: Verified,
  purpose: "signup" | "invite" | "sign_in",
  method: AuthMethod,
  action: AuditAction,
): Promise<Applied> {
  const { user } = verified;
  const now = deps.clock.now();
  const passwordHash = passwordAfter(verified, purpose);
  // Following a mail to its address proves the address, whatever the mail was for.
  const confirmed = verified.token.relatesTo === user.email && !isEmailConfirmed(user) ? confirmEmail(user, now) : user;
  const signedIn: User = { ...confirmed, passwordHash, lastSignInAt: now, updatedAt: now };
  await stores.users.update(signedIn);
  await saveEmailIdentity(stores, signedIn);
  // A verified address or a new session voids whatever else was pending for the account, and sessions opened
  // before anything was proven were not its owner's to open.
  await stores.oneTimeTokens.deleteAllOfUser(user.id);
  if (!isProven(user)) await stores.sessions.deleteAllOfUser(user.id);
  const traits = { provider: "email" };
  if (action !== "login") await recordAudit(deps, stores, { action, actor: signedIn, context: verified.context, traits });
  await recordAudit(deps, stores, { action: "login", actor: signedIn, context: verified.context, traits: { ...traits, method } });
  return { kind: "applied", user: signedIn, method };
}

/**
 * Completes an email change once every address that had to confirm has: the token just used is gone, and if the
 * other address's token is still pending, it must confirm too (secure email change).
 */
async function changeEmail(deps: Deps, stores: Stores, verified: Verified): Promise<Applied> {
  const { user, token } = verified;
  const newEmail = user.newEmail;
  const expectedAddress = token.kind === "email_change_new" ? newEmail : user.email;
  if (newEmail === null || token.relatesTo !== expectedAddress) throw emailChangeInvalid();
  const otherKind = token.kind === "email_change_new" ? "email_change_current" : "email_change_new";
  if (await stores.oneTimeTokens.findByUser(user.id, otherKind)) return { kind: "awaiting_other_address" };

  const now = deps.clock.now();
  const oldEmail = user.email;
  // An anonymous user with a confirmed address is anonymous no longer: it can sign in again by that address.
  const moved = { ...user, email: newEmail, newEmail: null, isAnonymous: false, lastSignInAt: now, updatedAt: now };
  const withIdentity = confirmEmail(withContactIdentity(moved, "email", deps.random.uuid(), now), now);
  await stores.users.update(withIdentity);
  await saveEmailIdentity(stores, withIdentity);
  await stores.oneTimeTokens.deleteAllOfUser(user.id);
  const context = verified.context;
  await recordAudit(deps, stores, { action: "user_modified", actor: withIdentity, context, traits: { email_changed: true } });
  await recordAudit(deps, stores, { action: "login", actor: withIdentity, context, traits: { provider: "email", method: "email_change" } });
  if (oldEmail !== null && deps.policy.email.notifications.emailChanged) {
    await queueNotification(deps, stores, { kind: "email_changed", to: oldEmail, email: newEmail, oldEmail });
  }
  return { kind: "applied", user: withIdentity, method: "email_change" };
}

async function saveEmailIdentity(stores: Stores, user: User): Promise<void> {
  const identity = user.identities.find((candidate) => candidate.provider === "email");
  if (identity) await stores.identities.save(identity);
}
