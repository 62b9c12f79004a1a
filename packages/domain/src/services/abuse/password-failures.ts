import type { Deps } from "../../deps.ts";
import { AuthError, isAuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { normalizePhone } from "../../model/phone.ts";
import type { User } from "../../model/user.ts";
import { refusedBy } from "./refusal.ts";

/**
 * A password attempt counted for one address, from every client and through every instance (the limiter is
 * shared): `key` is null for an address that cannot be valid, which names no account and is not counted.
 */
export interface PasswordAttempt {
  readonly key: string | null;
}

/**
 * Keyed by the address as the user gave it, normalized (lower-cased email, E.164 phone), never by the user: an
 * address nobody has is counted, and refused, exactly like one that belongs to an account.
 */
const failuresKey = (kind: "email" | "phone", address: string) => `account:password_failures:${kind}:${address}`;

/**
 * Counts the attempt as a failure before anything is looked at, and refuses it, with GoTrue's 429 and the seconds
 * left, when the address already had RATE_LIMIT_PASSWORD_FAILURES failures in its window: before the account is
 * looked up or any password hashed, so the refusal is the same whether the account exists. security: counted
 * first, in one atomic step, so that a burst of concurrent guesses gets no more evaluations than the limit (a
 * check before and a count after let every request in flight through). A right password takes its count back
 * (refundPasswordAttempt). The window starts with the first failure and is never extended: the lock is time-boxed.
 */
export async function takePasswordAttempt(
  deps: Deps,
  address: { email: string } | { phone: string },
): Promise<PasswordAttempt> {
  const key = keyOf(address);
  if (key === null) return { key };
  const { events, perSeconds } = deps.policy.requestLimits.passwordFailures;
  const decision = await deps.rateLimiter.consume(key, events, perSeconds);
  if (!decision.allowed) {
    // Counted too, which changes nothing: the window's end is fixed, and the count is past the limit already.
    const error = new AuthError("over_request_rate_limit", messages.requestRateLimit, {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
    throw refusedBy(deps, "password_failures", error);
  }
  return { key };
}

/** A right password: the attempt was no failure. Earlier failures stay until a sign-in succeeds. */
export async function refundPasswordAttempt(deps: Deps, attempt: PasswordAttempt): Promise<void> {
  if (attempt.key !== null) await deps.rateLimiter.refund(attempt.key);
}

/** After a successful sign-in: forgets the address's failures, this attempt's count with them. */
export async function forgetPasswordFailures(deps: Deps, attempt: PasswordAttempt): Promise<void> {
  if (attempt.key !== null) await deps.rateLimiter.reset([attempt.key]);
}

/** After a new password (a reset or a change): forgets the failures of every address of the account, in one call. */
export async function forgetAccountPasswordFailures(deps: Deps, user: Pick<User, "email" | "phone">): Promise<void> {
  const keys = [
    user.email === null ? null : keyOf({ email: user.email }),
    user.phone === null ? null : keyOf({ phone: user.phone }),
  ].filter((key) => key !== null);
  if (keys.length > 0) await deps.rateLimiter.reset(keys);
}

function keyOf(address: { email: string } | { phone: string }): string | null {
  try {
    return "email" in address
      ? failuresKey("email", normalizeEmail(address.email))
      : failuresKey("phone", normalizePhone(address.phone));
  } catch (error) {
    if (isAuthError(error, "validation_failed")) return null;
    throw error;
  }
}
