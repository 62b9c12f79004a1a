import type { Deps } from "../../deps.ts";
import type { AuthError } from "../../errors.ts";
import type { RateLimitName } from "../../ports/flow-events.ts";

/** A rate limit's refusal, counted by the limit that refused: `throw refusedBy(deps, "email_quota", error)`. */
export function refusedBy(deps: Deps, limit: RateLimitName, error: AuthError): AuthError {
  deps.events.record({ kind: "rate_limited", limit });
  return error;
}
