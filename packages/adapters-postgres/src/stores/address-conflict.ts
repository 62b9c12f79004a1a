import { AuthError, messages } from "@latchkey/domain";
import { userAddressConstraints } from "../schema/users.ts";
import { violatedUniqueConstraint } from "./database-error.ts";

/**
 * Rethrows a write's failure, as AuthError `email_exists` or `phone_exists` when it broke the unique constraint on
 * a user's address. The constraint decides, so a concurrent insert that won the race is reported like any other
 * holder. Inside a transaction the failed statement has aborted it: the AuthError must propagate out of tx.run,
 * which rolls back.
 */
export function rethrowAddressConflict(namespace: string): (error: unknown) => never {
  const constraints = userAddressConstraints(namespace);
  return (error) => {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === constraints.email) throw new AuthError("email_exists", messages.emailExists);
    if (constraint === constraints.phone) throw new AuthError("phone_exists", messages.phoneExists);
    throw error;
  };
}
