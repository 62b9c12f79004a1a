/**
 * Tells whether a password is among those known from breaches (HaveIBeenPwned's Pwned Passwords, PASSWORD_HIBP_*).
 * Rejects when the service cannot answer in time (unreachable, too slow, an answer that is not its own): the
 * caller then decides, by PASSWORD_HIBP_FAIL_CLOSED, whether the password passes unchecked or is refused. The
 * rejection's message says why, for the operator.
 */
export interface PwnedPasswords {
  check(password: string): Promise<"pwned" | "clean">;
}
