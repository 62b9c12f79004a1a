import type { SessionGrant } from "@latchkey/domain";
import { presentUser } from "./user.ts";

/** The token response: the specification's fields plus `expires_at` and `user`, which auth-js reads (docs/compatibility.md). */
export function presentSession(grant: SessionGrant) {
  return {
    access_token: grant.accessToken,
    token_type: grant.tokenType,
    expires_in: grant.expiresIn,
    expires_at: grant.expiresAt,
    refresh_token: grant.refreshToken,
    user: presentUser(grant.user),
    ...(grant.weakPassword ? { weak_password: grant.weakPassword } : {}),
  };
}
