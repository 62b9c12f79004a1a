import { AuthError, messages } from "@latchkey/domain";
import { identityKeyConstraint } from "../schema/identities.ts";
import { userAddressConstraints } from "../schema/users.ts";
import { violatedUniqueConstraint } from "./database-error.ts";

/**
 * Rethrows a write's failure, as AuthError `email_exists` or `phone_exists` when it broke the unique constraint on
 * a user's address, `identity_already_exists` on a provider identity's. The constraint decides, so a concurrent insert that won the race is reported like any other
 * holder. Inside a transaction the failed statement has aborted it: the AuthError must propagate out of tx.run,
 * which rolls back.
 */
export function rethrowAddressConflict(namespace: string): (error: unknown) => never {
  const constraints = userAddressConstraints(namespace);
  return (error) => {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === constraints.email) throw new AuthError("email_exists", messages.emailExists);
    if (constraint === constraints.phone) throw new AuthError("phone_exists", messages.phoneExists);
    // A new user's identity that another user got first: the sign-in that lost a race
    // (use-cases/oauth/sign-in-with-profile.ts).
    if (constraint === identityKeyConstraint(namespace)) {
      throw new AuthError("identity_already_exists", "Identity is already linked to another user");
    }
    throw error;
  };
}
