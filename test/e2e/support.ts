import { GoTrueClient } from "@supabase/auth-js";
import { SignJWT } from "jose";
import { TEST_JWT_SECRET, type TestServer } from "../../apps/server/test/support/start-test-server.ts";

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
export function client(server: TestServer, options: { flowType?: "implicit" | "pkce"; headers?: Record<string, string> } = {}) {
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
  return new SignJWT({ role: "service_role" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setExpirationTime("1h").sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

/** The parameters a redirect delivered in its fragment. */
export function fragmentOf(url: URL): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(url.hash.slice(1)));
}
