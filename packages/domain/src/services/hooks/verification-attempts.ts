import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { FactorType } from "../../model/factor.ts";
import type { User } from "../../model/user.ts";
import type { HookAnswer } from "../../ports/hooks.ts";
import type { Stores } from "../../ports/stores.ts";
import { callHook, hookMetadata } from "./call-hook.ts";

// GoTrue's words when the hook rejects without a message of its own.
const PASSWORD_REJECTED = "Further password verification attempts will be rejected.";
const MFA_REJECTED = "Further MFA verification attempts will be rejected.";

/** What the password_verification_attempt hook decided: go on as the password says, or reject. */
export type PasswordAttemptVerdict =
  | { readonly kind: "proceed" }
  | { readonly kind: "reject"; readonly error: AuthError; readonly signOutEverywhere: boolean };

const rejects = (answer: HookAnswer) => answer?.["decision"] === "reject";
const messageOf = (answer: HookAnswer, otherwise: string) => {
  const message = answer?.["message"];
  return typeof message === "string" && message !== "" ? message : otherwise;
};

/**
 * Tells the password_verification_attempt hook of a password checked against `user`'s (`valid`: whether it was the
 * right one), as GoTrue does after every check of a found user's password, right or wrong. It may reject the
 * attempt (`invalid_credentials` with its message), and ask that the user's sessions end.
 */
export async function passwordAttempt(
  deps: Deps,
  attempt: { user: User; valid: boolean; context: RequestContext },
): Promise<PasswordAttemptVerdict> {
  const hook = deps.hooks.password_verification_attempt;
  if (hook === undefined) return { kind: "proceed" };
  const payload = {
    metadata: hookMetadata(deps, "password_verification_attempt", attempt.context),
    user_id: attempt.user.id,
    valid: attempt.valid,
  };
  const answer = await callHook(hook, { name: "password_verification_attempt", payload, stores: deps.stores });
  if (!rejects(answer)) return { kind: "proceed" };
  return {
    kind: "reject",
    error: new AuthError("invalid_credentials", messageOf(answer, PASSWORD_REJECTED)),
    signOutEverywhere: answer?.["should_logout_user"] === true,
  };
}

/** A code checked against a factor: whose, which, and whether it was right. */
interface MfaAttempt {
  readonly userId: string;
  readonly factorId: string;
  readonly factorType: FactorType;
  readonly valid: boolean;
  readonly context: RequestContext;
}

/**
 * Tells the mfa_verification_attempt hook of a code checked against a factor (`valid`: whether it was right), as
 * GoTrue does after every TOTP and phone check. A rejection is `mfa_verification_rejected` with its message, and
 * ends every session of the user (GoTrue's Logout); the caller carries that out. `stores`: the transaction that
 * holds the factor, where one does.
 */
export async function mfaAttempt(deps: Deps, stores: Stores, attempt: MfaAttempt): Promise<AuthError | null> {
  const hook = deps.hooks.mfa_verification_attempt;
  if (hook === undefined) return null;
  const payload = {
    metadata: hookMetadata(deps, "mfa_verification_attempt", attempt.context),
    user_id: attempt.userId,
    factor_id: attempt.factorId,
    factor_type: attempt.factorType,
    valid: attempt.valid,
  };
  const answer = await callHook(hook, { name: "mfa_verification_attempt", payload, stores });
  if (!rejects(answer)) return null;
  return new AuthError("mfa_verification_rejected", messageOf(answer, MFA_REJECTED));
}
