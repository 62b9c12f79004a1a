import { type Metadata, sameJson } from "../../model/metadata.ts";
import { NO_CHOICES, type PendingChoices } from "../../model/one-time-token.ts";
import type { User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";

/**
 * What a sign-in mail or code carries when it confirms an unproven account again (/otp, /magiclink asked again):
 * no password, since whoever asked for it chose none, and the pending confirmation's data only if this request
 * chose the same, so that one party asking again never carries another party's data to whoever proves the address.
 */
export async function choicesOfSignInCode(
  stores: Stores,
  user: User,
  data: Metadata | undefined,
): Promise<PendingChoices> {
  const pending = await stores.oneTimeTokens.findByUser(user.id, "confirmation");
  const same = pending?.userMetadata != null && sameJson(pending.userMetadata, data ?? {});
  return { ...NO_CHOICES, userMetadata: same ? pending.userMetadata : null };
}
