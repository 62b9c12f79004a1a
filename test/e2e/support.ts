import { TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { GoTrueAdminApi, GoTrueClient } from "@supabase/auth-js";
import { SignJWT } from "jose";

/** What a browser app's localStorage would be. */
export function memoryStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

/** The official client, configured as a browser app would configure it. */
export function client(
  server: TestServer,
  options: { flowType?: "implicit" | "pkce"; headers?: Record<string, string> } = {},
) {
  return new GoTrueClient({
    url: server.url,
    storageKey: `sb-test-${Math.random().toString(36).slice(2)}`,
    storage: memoryStorage(),
    persistSession: true,
    autoRefreshToken: false,
    detectSessionInUrl: false,
    flowType: options.flowType ?? "implicit",
    headers: { apikey: "anon-key-placeholder", ...options.headers },
  });
}

/** A Supabase-style service_role key: an HS256 JWT with only a role, signed with JWT_SECRET. */
export function serviceRoleKey(): Promise<string> {
  return new SignJWT({ role: "service_role" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

/** Supabase's anon key: an HS256 JWT with role `anon` and nothing else that could sign anyone in. */
export function anonKey(): Promise<string> {
  return new SignJWT({ role: "anon", iss: "supabase" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("10y")
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

/** The parameters a redirect delivered in its fragment. */
export function fragmentOf(url: URL): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(url.hash.slice(1)));
}

/** The official client's admin API, authorized by the service_role key as a backend would be. */
export async function adminApi(server: TestServer): Promise<GoTrueAdminApi> {
  const key = await serviceRoleKey();
  return new GoTrueAdminApi({ url: server.url, headers: { Authorization: `Bearer ${key}`, apikey: key } });
}

/** The claims of an access token, unverified. */
export function claimsOf(accessToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
}
