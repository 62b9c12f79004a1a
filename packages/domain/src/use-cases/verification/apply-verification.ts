import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { AuditAction } from "../../model/audit.ts";
import type { Identity } from "../../model/identity.ts";
import type { Metadata } from "../../model/metadata.ts";
import { isSmsToken, type OneTimeToken } from "../../model/one-time-token.ts";
import type { AuthMethod } from "../../model/session.ts";
import {
  confirmEmail,
  confirmPhone,
  type EmailChangeSide,
  isEmailConfirmed,
  isPhoneConfirmed,
  type User,
  withChosenMetadata,
  withContactIdentity,
  withoutEmailChange,
  withProviders,
} from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { recordAudit } from "../../services/audit.ts";
import { takeContact } from "../../services/contacts/contact-holders.ts";
import { applyPhoneChange } from "../../services/contacts/phone-change.ts";
import { queueNotification } from "../../services/delivery/notifications.ts";

export type Applied =
  | { readonly kind: "applied"; readonly user: User; readonly method: AuthMethod }
  | { readonly kind: "awaiting_other_address" };

interface Verified {
  readonly user: User;
  readonly token: OneTimeToken;
  readonly newPasswordHash: string | undefined;
  readonly context: RequestContext;
}

const emailChangeInvalid = () => new AuthError("otp_expired", "Email link is invalid or has expired");

/**
 * Does what a verified token was issued for, in the caller's transaction: confirm the address (signup, invite,
 * and any sign-in by mail or SMS proves the mailbox or the number), or complete an email change once both
 * addresses agreed, or a phone change.
 */
export async function applyVerification(deps: Deps, stores: Stores, verified: Verified): Promise<Applied> {
  const { token, user } = verified;
  switch (token.kind) {
    case "confirmation":
      if (!isSmsToken(token)) {
        return signIn(deps, stores, verified, { purpose: "signup", method: "email/signup", action: "user_signedup" });
      }
      // A phone's confirmation code both signs up and signs in (GoTrue's SMS OTP).
      return isPhoneConfirmed(user)
        ? signIn(deps, stores, verified, { purpose: "sign_in", method: "otp", action: "login" })
        : signIn(deps, stores, verified, { purpose: "signup", method: "otp", action: "user_signedup" });
    case "invite":
      return signIn(deps, stores, verified, { purpose: "invite", method: "invite", action: "invite_accepted" });
    case "magic_link":
      return signIn(deps, stores, verified, { purpose: "sign_in", method: "magiclink", action: "login" });
    case "recovery":
      return signIn(deps, stores, verified, { purpose: "sign_in", method: "recovery", action: "login" });
    case "email_change_new":
    case "email_change_current":
      return changeEmail(deps, stores, verified);
    case "phone_change":
      return changePhone(deps, stores, verified);
    default:
      // Reauthentication nonces are not verified here, but by the password change they allow.
      throw new AuthError("otp_expired", "Token has expired or is invalid");
  }
}

/** Whether any of the account's addresses has been proven: until one is, anyone may have set its password. */
function isProven(user: User): boolean {
  return isEmailConfirmed(user) || isPhoneConfirmed(user);
}

/**
 * The account's password once the token is verified. security: a password set on an account none of whose
 * addresses was proven may be anyone's (pre-account hijacking), so proving the address replaces it: with the one
 * given with the code (by whoever holds it), else the one the verified mail carried (its signup's choice), else
 * none. A proven account keeps its password. POST /verify of a signup or invite may set one where the account has
 * none, but never has to: an account made by /otp or /magiclink has none, and verifying its mail signs it in
 * (docs/compatibility.md, "Passwordless signups").
 */
function passwordAfter(verified: Verified, purpose: "signup" | "invite" | "sign_in"): string | null {
  const { user, token } = verified;
  const given = purpose === "sign_in" ? undefined : verified.newPasswordHash;
  if (isProven(user)) return user.passwordHash ?? given ?? null;
  return given ?? token.passwordHash ?? null;
}

/** The first proof of an account: the token verified, by which address, and the id its identity gets if new. */
interface Proof {
  readonly token: OneTimeToken;
  readonly provider: "email" | "phone";
  readonly newIdentityId: string;
  readonly now: Date;
}

/**
 * The account as its first proof leaves it. security (pre-account takeover): until an address of the account is
 * proven, anyone may have attached a sign-in method to it, such as a provider identity that merely claimed the
 * address. Only the account's own addresses (`email`, `phone`) and the provider identity whose sign-in asked for
 * this very token stay; the user_metadata the others gave goes with them, and the proven address gets its identity
 * if it had none (an account a provider sign-in made).
 */
function ownedByProver(user: User, proof: Proof): { user: User; dropped: Identity[] } {
  const { token, provider, newIdentityId, now } = proof;
  const stays = (identity: Identity) =>
    identity.provider === "email" || identity.provider === "phone" || identity.id === token.identityId;
  const dropped = user.identities.filter((identity) => !stays(identity));
  if (dropped.length === 0) return { user, dropped };
  const kept = withContactIdentity(
    { ...user, identities: user.identities.filter(stays) },
    provider,
    newIdentityId,
    now,
  );
  const userMetadata = Object.assign({}, ...kept.identities.map((identity) => identity.identityData)) as Metadata;
  return { user: { ...kept, userMetadata, appMetadata: withProviders(kept.appMetadata, kept.identities) }, dropped };
}

/** What a verified token signs in as: its purpose, the session's method, and the audit action besides `login`. */
interface SignInAs {
  readonly purpose: "signup" | "invite" | "sign_in";
  readonly method: AuthMethod;
  readonly action: AuditAction;
}

async function signIn(deps: Deps, stores: Stores, verified: Verified, how: SignInAs): Promise<Applied> {
  const { purpose, method, action } = how;
  const { user, token } = verified;
  const now = deps.clock.now();
  const passwordHash = passwordAfter(verified, purpose);
  const provider = isSmsToken(token) ? "phone" : "email";
  // A code sent to an address the account has left since (a number given up and perhaps reassigned) is void.
  if (token.relatesTo !== (provider === "email" ? user.email : user.phone)) {
    throw new AuthError(
      "otp_expired",
      provider === "email" ? "Email link is invalid or has expired" : "Token has expired or is invalid",
    );
  }
  // Following a mail (an SMS) to its address (number) proves it, whatever it was sent for. The first proof of an
  // account leaves it only what this token's request chose (see passwordAfter, ownedByProver, and OneTimeToken).
  const proves = provider === "email" ? !isEmailConfirmed(user) : !isPhoneConfirmed(user);
  const firstProof = !isProven(user);
  const owned = firstProof
    ? ownedByProver(user, { token, provider, newIdentityId: deps.random.uuid(), now })
    : { user, dropped: [] };
  const chosen = firstProof ? withChosenMetadata(owned.user, token.userMetadata) : user;
  const confirmed = !proves ? chosen : provider === "email" ? confirmEmail(chosen, now) : confirmPhone(chosen, now);
  // An anonymous user with a proven address is anonymous no longer: it can sign in again by that address.
  const signedIn: User = {
    ...confirmed,
    passwordHash,
    isAnonymous: confirmed.isAnonymous && !proves,
    lastSignInAt: now,
    updatedAt: now,
    factors: firstProof ? [] : confirmed.factors,
  };
  await stores.users.update(signedIn);
  for (const identity of owned.dropped) await stores.identities.delete(user.id, identity.id);
  await saveContactIdentity(stores, signedIn, provider);
  // A verified address or a new session voids whatever else was pending for the account, and the sessions opened
  // and factors enrolled before anything was proven were not its owner's.
  await stores.oneTimeTokens.deleteAllOfUser(user.id);
  if (firstProof) {
    await stores.sessions.deleteAllOfUser(user.id);
    await stores.factors.deleteAllOfUser(user.id);
  }
  const traits = { provider };
  if (action !== "login")
    await recordAudit(deps, stores, { action, actor: signedIn, context: verified.context, traits });
  await recordAudit(deps, stores, {
    action: "login",
    actor: signedIn,
    context: verified.context,
    traits: { ...traits, method },
  });
  return { kind: "applied", user: signedIn, method };
}

/**
 * Records this address's confirmation of the pending email change, and completes the change once every address
 * that must confirm has: the new one always, the current one too under secure email change. security: each
 * confirmation is the record of its own token verified; the other address's token being gone (burned by wrong
 * codes, expired, replaced) never stands in for one, or the new address alone could take the account.
 */
async function changeEmail(deps: Deps, stores: Stores, verified: Verified): Promise<Applied> {
  const { user, token } = verified;
  const newEmail = user.newEmail;
  const side: EmailChangeSide = token.kind === "email_change_new" ? "new" : "current";
  const expectedAddress = side === "new" ? newEmail : user.email;
  if (newEmail === null || token.relatesTo !== expectedAddress) throw emailChangeInvalid();
  const now = deps.clock.now();
  const confirmed = new Set([side, user.emailChangeConfirmedBy]);
  const needsCurrent = deps.policy.email.secureEmailChange && user.email !== null;
  if (!confirmed.has("new") || (needsCurrent && !confirmed.has("current"))) {
    await stores.users.update({ ...user, emailChangeConfirmedBy: side, updatedAt: now });
    return { kind: "awaiting_other_address" };
  }

  await takeContact(deps, stores, { provider: "email", address: newEmail }, user.id);
  const oldEmail = user.email;
  // An anonymous user with a confirmed address is anonymous no longer: it can sign in again by that address.
  const moved = { ...withoutEmailChange(user), email: newEmail, isAnonymous: false, lastSignInAt: now, updatedAt: now };
  const withIdentity = confirmEmail(withContactIdentity(moved, "email", deps.random.uuid(), now), now);
  await stores.users.update(withIdentity);
  await saveContactIdentity(stores, withIdentity, "email");
  await stores.oneTimeTokens.deleteAllOfUser(user.id);
  const context = verified.context;
  await recordAudit(deps, stores, {
    action: "user_modified",
    actor: withIdentity,
    context,
    traits: { email_changed: true },
  });
  await recordAudit(deps, stores, {
    action: "login",
    actor: withIdentity,
    context,
    traits: { provider: "email", method: "email_change" },
  });
  if (oldEmail !== null && deps.policy.email.notifications.email_changed) {
    const notification = { kind: "email_changed", to: oldEmail, email: newEmail, oldEmail } as const;
    await queueNotification(deps, stores, notification, withIdentity.id);
  }
  return { kind: "applied", user: withIdentity, method: "email_change" };
}

/** Completes a phone change: the code texted to the new number proves it. */
async function changePhone(deps: Deps, stores: Stores, verified: Verified): Promise<Applied> {
  const { user, token, context } = verified;
  const newPhone = user.newPhone;
  if (newPhone === null || token.relatesTo !== newPhone)
    throw new AuthError("otp_expired", "Token has expired or is invalid");
  const now = deps.clock.now();
  const changed = await applyPhoneChange(
    deps,
    stores,
    { ...user, lastSignInAt: now, updatedAt: now },
    { phone: newPhone, now },
  );
  await stores.users.update(changed);
  await stores.oneTimeTokens.deleteAllOfUser(user.id);
  await recordAudit(deps, stores, {
    action: "user_modified",
    actor: changed,
    context,
    traits: { phone_changed: true },
  });
  await recordAudit(deps, stores, {
    action: "login",
    actor: changed,
    context,
    traits: { provider: "phone", method: "otp" },
  });
  return { kind: "applied", user: changed, method: "otp" };
}

async function saveContactIdentity(stores: Stores, user: User, provider: "email" | "phone"): Promise<void> {
  const identity = user.identities.find((candidate) => candidate.provider === provider);
  if (identity) await stores.identities.save(identity);
}
