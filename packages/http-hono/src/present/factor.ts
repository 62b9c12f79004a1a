import type { Factor } from "@latchkey/domain";
import { timestamp } from "./timestamp.ts";

/** GoTrue's factor JSON: `friendly_name` omitted when empty, `phone` empty for TOTP, `last_challenged_at` null until one. */
export function presentFactor(factor: Factor) {
  return {
    id: factor.id,
    created_at: timestamp(factor.createdAt),
    updated_at: timestamp(factor.updatedAt),
    status: factor.status,
    ...(factor.friendlyName ? { friendly_name: factor.friendlyName } : {}),
    factor_type: factor.type,
    phone: factor.phone ?? "",
    last_challenged_at: factor.lastChallengedAt === null ? null : timestamp(factor.lastChallengedAt),
  };
}
