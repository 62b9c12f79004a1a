import { isAuthError } from "../../errors.ts";

/** What a sign-in's transaction meets when another one made the same new account first. */
const LOST_RACE: ReadonlySet<string> = new Set(["identity_already_exists", "email_exists", "phone_exists"]);

/**
 * Runs a provider sign-in's transaction, and once more if it lost a race: two first sign-ins of one new identity at
 * once (a double click, two tabs) both decide to create the account, and the second insert breaks a unique
 * constraint. Run again, it finds the account the first one made and signs in to it. A conflict that is no race
 * (an identity linked to another user) fails the same way the second time, and is answered as such.
 */
export async function onceMoreIfRaced<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAuthError(error) && LOST_RACE.has(error.code)) return work();
    throw error;
  }
}
