import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { ClientAddress } from "@latchkey/http-hono";
import type { Config } from "../config/index.ts";

const firstAddress = (value: string | undefined): string | null => {
  const first = value?.split(",")[0]?.trim();
  return first && isIP(first) ? first : null;
};

/**
 * The client's IP: from Auth-Forwarded-For when SECURITY_SB_FORWARDED_FOR_ENABLED says a trusted proxy sets it,
 * else from the header named by RATE_LIMIT_HEADER (also set by a trusted proxy), else the socket's peer.
 * Client-chosen forwarding headers are never trusted on their own.
 */
export function createClientAddress(config: Config): ClientAddress {
  return (c) => {
    if (config.security.sbForwardedForEnabled) {
      const forwarded = firstAddress(c.req.header("auth-forwarded-for"));
      if (forwarded) return forwarded;
    }
    if (config.rateLimit.header) {
      const fromProxy = firstAddress(c.req.header(config.rateLimit.header));
      if (fromProxy) return fromProxy;
    }
    try {
      return getConnInfo(c).remote.address ?? null;
    } catch {
      return null; // not served by @hono/node-server (in-process requests in tests)
    }
  };
}
