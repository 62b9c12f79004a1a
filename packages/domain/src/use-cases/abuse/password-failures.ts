import { AuthError, isAuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import { normalizePhone } from "../../model/phone.ts";
import type { User } from "../../model/user.ts";
import type { Deps } from "../deps.ts";
import { refusedBy } from "./refusal.ts";

/**
 * Failed password sign-ins counted for one address, from every client and through every instance (the limiter is
 * shared): `key` is null for an address that cannot be valid, which names no account and is not counted; `events`
 * is what the window held when the attempt began.
 */
export interface PasswordFailures {
  readonly key: string | null;
  readonly events: number;
}

/**
 * Keyed by the address as the user gave it, normalized (lower-cased email, E.164 phone), never by the user: an
 * address nobody has is counted, and refused, exactly like one that belongs to an account.
 */
const failuresKey = (kind: "email" | "phone", address: string) => `account:password_failures:${kind}:${address}`;

/**
 * security: an address with RATE_LIMIT_PASSWORD_FAILURES failures in its window may try no more until the window
 * ends, with GoTrue's 429 and the seconds left, before the account is looked up or any password hashed, so the
 * refusal is the same whether the account exists. The window starts with the first failure and is never
 * extended: the lock is time-boxed. Requests already past this check when the limit is reached still get their
 * answers, so a burst may overrun it by as many attempts as were in flight.
 */
export async function assertPasswordAttemptsLeft(
  deps: Deps,
  address: { email: string } | { phone: string },
): Promise<PasswordFailures> {
  const key = keyOf(address);
  if (key === null) return { key, events: 0 };
  const { events, secondsLeft } = await deps.rateLimiter.counted(key);
  if (events >= deps.policy.requestLimits.passwordFailures.events) {
    const error = new AuthError("over_request_rate_limit", messages.requestRateLimit, {
      retryAfterSeconds: secondsLeft,
    });
    throw refusedBy(deps, "password_failures", error);
  }
  return { key, events };
}

/** Counts a failed attempt: a wrong password, or any password for an address with none. */
export async function countPasswordFailure(deps: Deps, failures: PasswordFailures): Promise<void> {
  if (failures.key === null) return;
  const { events, perSeconds } = deps.policy.requestLimits.passwordFailures;
  await deps.rateLimiter.consume(failures.key, events, perSeconds);
}

/**
 * After a successful sign-in: forgets the address's failures, if it had any when the attempt began, so the hot
 * path of a sign-in with nothing to forget costs no second call to the limiter.
 */
export async function forgetPasswordFailures(deps: Deps, failures: PasswordFailures): Promise<void> {
  if (failures.key !== null && failures.events > 0) await deps.rateLimiter.reset([failures.key]);
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
