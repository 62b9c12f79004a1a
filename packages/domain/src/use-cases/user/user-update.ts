import type { Aal } from "../../model/session.ts";
import { hasVerifiedFactor, type User } from "../../model/user.ts";

export type UserUpdateDecision =
  /** An anonymous user's password needs an address (or phone) to sign in with, given in the same request. */
  | { readonly kind: "refuse_password_without_address" }
  | {
      readonly kind: "update";
      /** The address the account moves to, pending its confirmation; null when it stays. */
      readonly email: string | null;
      /** The number the account moves to; null when it stays. */
      readonly phone: string | null;
      readonly password: boolean;
      /**
       * security: with a second factor verified, what signs the account in changes only from an aal2 session, as
       * GoTrue's PUT /user requires: a stolen password alone must not let its holder take the account over. The
       * request is then refused, once the new addresses are known to be free (that answer comes first, as before).
       */
      readonly lacksAal2: boolean;
      /** A code goes to the new number; without it (SMS_AUTOCONFIRM) the number is the account's at once. */
      readonly sendsPhoneCode: boolean;
    };

/** What PUT /user changes of the caller's account, and whether it may. */
export function decideUserUpdate(request: {
  readonly caller: User;
  /** The session's assurance level; null for a caller without a session. */
  readonly aal: Aal | null;
  /** The addresses asked for, normalized; undefined when not asked. */
  readonly email: string | undefined;
  readonly phone: string | undefined;
  readonly password: boolean;
  /** SMS_AUTOCONFIRM */
  readonly phoneAutoconfirm: boolean;
}): UserUpdateDecision {
  const { caller, email, phone, password } = request;
  if (caller.isAnonymous && password && !email && !phone) return { kind: "refuse_password_without_address" };
  const newEmail = email !== undefined && email !== caller.email ? email : null;
  const newPhone = phone !== undefined && phone !== caller.phone ? phone : null;
  const changesSignIn = password || newEmail !== null || newPhone !== null;
  return {
    kind: "update",
    email: newEmail,
    phone: newPhone,
    password,
    lacksAal2: changesSignIn && hasVerifiedFactor(caller) && request.aal !== "aal2",
    sendsPhoneCode: newPhone !== null && !request.phoneAutoconfirm,
  };
}
