import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createClientAddress } from "../../src/http/client-address.ts";
import { production } from "../config/support.ts";

/** What the server takes for the client's address, given these headers (in process: there is no socket peer). */
async function addressOf(env: Record<string, string>, headers: Record<string, string>): Promise<string | null> {
  const clientAddress = createClientAddress(production(env));
  const app = new Hono().get("/", (c) => c.json({ address: clientAddress(c) }));
  const response = await app.request("/", { headers });
  return ((await response.json()) as { address: string | null }).address;
}

describe("the client's address behind proxies", () => {
  const xff = { AUTH_RATE_LIMIT_HEADER: "X-Forwarded-For" };

  it("is the last address a single proxy set or appended, never what the client put before it", async () => {
    expect(await addressOf(xff, { "x-forwarded-for": "198.51.100.7" })).toBe("198.51.100.7");
    // nginx's $proxy_add_x_forwarded_for: the client's own header, then the address nginx saw.
    expect(await addressOf(xff, { "x-forwarded-for": "10.9.9.9, 203.0.113.5, 198.51.100.7" })).toBe("198.51.100.7");
    expect(await addressOf(xff, { "x-forwarded-for": "2001:db8::1 , 2001:db8::2" })).toBe("2001:db8::2");
  });

  it("is as many from the right as RATE_LIMIT_HEADER_TRUSTED_PROXIES says, or the left-most when fewer", async () => {
    const twoProxies = { ...xff, AUTH_RATE_LIMIT_HEADER_TRUSTED_PROXIES: "2" };
    expect(await addressOf(twoProxies, { "x-forwarded-for": "10.9.9.9, 198.51.100.7, 203.0.113.1" })).toBe(
      "198.51.100.7",
    );
    expect(await addressOf(twoProxies, { "x-forwarded-for": "198.51.100.7" })).toBe("198.51.100.7");
  });

  it("is none of the header's when the chosen entry is no address", async () => {
    expect(await addressOf(xff, { "x-forwarded-for": "198.51.100.7, unknown" })).toBeNull();
    expect(await addressOf(xff, {})).toBeNull();
  });
});
