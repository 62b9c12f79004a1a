import type { Deps, SessionGrant } from "../../deps.ts";
import { AuthError, isAuthError } from "../../errors.ts";
import { assertWeakPassword, type Weakness, weaknessesOf } from "../../model/password-policy.ts";

/** GoTrue's sentence for a password found among breached ones. */
const PWNED: Weakness = {
  reason: "pwned",
  sentence: "Password is known to be weak and easy to guess, please choose a different one.",
};

/** A leaked-password service that did not answer is a dependency that cannot serve now: worth a retry soon. */
const PWNED_RETRY_AFTER_SECONDS = 10;

/**
 * GoTrue's checkPasswordStrength, for a password about to be set: validation_failed for one that cannot be, else
 * weak_password with every rule it fails, the length and character sets and, with PASSWORD_HIBP_ENABLED, `pwned`
 * for one known from breaches. A leaked-password service that cannot be asked lets the password pass (recorded)
 * unless PASSWORD_HIBP_FAIL_CLOSED, then the request is refused with service_unavailable (GoTrue answers 500).
 */
export async function assertPasswordStrong(deps: Deps, password: string): Promise<void> {
  const weaknesses = weaknessesOf(password, deps.policy.password);
  const failClosed = deps.policy.password.pwnedFailClosed;
  if (await isPwned(deps, password, failClosed)) weaknesses.push(PWNED);
  assertWeakPassword(weaknesses);
}

/**
 * What a password sign-in tells of the password just verified, should the policy refuse it now (GoTrue's
 * `weak_password` of the token answer). The leaked-password service not answering never fails a sign-in.
 */
export async function signInWeakness(deps: Deps, password: string): Promise<SessionGrant["weakPassword"]> {
  let weaknesses: Weakness[];
  try {
    weaknesses = weaknessesOf(password, deps.policy.password);
  } catch (error) {
    // An over-long password that still verified (a longer limit once): no strength to tell of.
    if (isAuthError(error, "validation_failed")) return undefined;
    throw error;
  }
  if (await isPwned(deps, password, false)) weaknesses.push(PWNED);
  if (weaknesses.length === 0) return undefined;
  return {
    message: weaknesses.map((weakness) => weakness.sentence).join(" "),
    reasons: weaknesses.map((weakness) => weakness.reason),
  };
}

/** Whether the service knows the password from breaches; false when it is off, or cannot answer and may fail open. */
async function isPwned(deps: Deps, password: string, failClosed: boolean): Promise<boolean> {
  if (deps.pwnedPasswords === null) return false;
  try {
    return (await deps.pwnedPasswords.check(password)) === "pwned";
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    deps.events.record({ kind: "pwned_check_failed", refused: failClosed, reason });
    if (!failClosed) return false;
    throw new AuthError("service_unavailable", "Unable to perform password strength check with HaveIBeenPwned.org.", {
      cause: error,
      retryAfterSeconds: PWNED_RETRY_AFTER_SECONDS,
    });
  }
}
