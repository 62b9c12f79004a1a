import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { ClientAddress } from "@latchkey/http-hono";
import type { Config } from "../config/index.ts";

const firstAddress = (value: string | undefined): string | null => {
  const first = value?.split(",")[0]?.trim();
  return first && isIP(first) ? first : null;
};

/**
 * The address `trustedProxies` from the right of a list its proxies append to (X-Forwarded-For), or the left-most
 * when there are fewer: anything further left the client sent itself, and may have made up.
 */
const addressAddedBy = (value: string | undefined, trustedProxies: number): string | null => {
  const addresses = value?.split(",").map((each) => each.trim()) ?? [];
  const chosen = addresses[Math.max(0, addresses.length - trustedProxies)];
  return chosen && isIP(chosen) ? chosen : null;
};

/**
 * The client's IP: from Auth-Forwarded-For when SECURITY_SB_FORWARDED_FOR_ENABLED says Supabase's gateway sets it,
 * else from the header named by RATE_LIMIT_HEADER (set or appended to by RATE_LIMIT_HEADER_TRUSTED_PROXIES
 * proxies), else the socket's peer. security: behind proxies that append, the first address of the list is
 * whatever the client sent; every per-client limit, the MFA challenge's binding and the audit log would follow it.
 */
export function createClientAddress(config: Config): ClientAddress {
  return (c) => {
    if (config.security.sbForwardedForEnabled) {
      const forwarded = firstAddress(c.req.header("auth-forwarded-for"));
      if (forwarded) return forwarded;
    }
    if (config.rateLimit.header) {
      const fromProxy = addressAddedBy(c.req.header(config.rateLimit.header), config.rateLimit.headerTrustedProxies);
      if (fromProxy) return fromProxy;
    }
    try {
      return getConnInfo(c).remote.address ?? null;
    } catch {
      return null; // not served by @hono/node-server (in-process requests in tests)
    }
  };
}
