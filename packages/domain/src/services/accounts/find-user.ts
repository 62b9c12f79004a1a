import { AuthError } from "../../errors.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";

/** The user an admin route names, or GoTrue's 404. */
export async function findUserOrFail(stores: Stores, userId: string, options?: { forUpdate?: boolean }): Promise<User> {
  const user = await stores.users.findById(userId, options);
  if (!user) throw new AuthError("user_not_found", "User not found");
  return user;
}
