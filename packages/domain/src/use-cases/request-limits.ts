import { AuthError, messages } from "../errors.ts";
import type { RequestRate } from "../policy.ts";
import type { Deps, RequestContext } from "./deps.ts";

/**
 * Counts one request of `bucket` from the caller's IP and refuses past `rate` with GoTrue's 429, before the
 * request costs any hashing or writing. A caller whose address the transport does not know is not counted.
 */
export async function limitPerClient(deps: Deps, bucket: string, context: RequestContext, rate: RequestRate): Promise<void> {
  if (context.ip === null) return;
  const decision = await deps.rateLimiter.consume(`ip:${bucket}:${context.ip}`, rate.events, rate.perSeconds);
  if (!decision.allowed) {
    throw new AuthError("over_request_rate_limit", messages.requestRateLimit, { retryAfterSeconds: decision.retryAfterSeconds });
  }
}
