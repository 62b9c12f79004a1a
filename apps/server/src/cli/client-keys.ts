import { createJwtSigner } from "@latchkey/adapters-crypto";
import type { ClientKeysConfig } from "../config/index.ts";

/** What an app gives `createClient`, and what an admin tool signs its calls with. */
export interface ClientKeys {
  /** The URL to give `createClient`: API_EXTERNAL_URL without a trailing `/auth/v1`, which the client adds. */
  readonly url: string;
  readonly anonKey: string;
  readonly serviceRoleKey: string;
}

/** As long as Supabase's own project keys last; they end sooner only when the key that signed them changes. */
const KEY_LIFETIME_SECONDS = 10 * 365 * 24 * 60 * 60;

/**
 * The anon and service_role keys of a configuration, as Supabase makes a project's: long-lived JWTs with nothing but
 * a role, HS256 with JWT_SECRET. Where JWT_VALID_METHODS leaves HS256 out they would be refused, so the ring's
 * signing key signs them instead. Each call mints new ones; every one stays valid while its key does.
 */
export async function clientKeys(config: ClientKeysConfig, now: Date = new Date()): Promise<ClientKeys> {
  const { secret, keyId, keys, validMethods } = config.jwt;
  const hs256 = validMethods.includes("HS256");
  const signer = createJwtSigner({ secret, keyId, ring: hs256 ? undefined : keys, validMethods });
  const iat = Math.floor(now.getTime() / 1000);
  const keyOf = (role: string) => signer.sign({ iss: "latchkey", role, iat, exp: iat + KEY_LIFETIME_SECONDS });
  return {
    url: config.externalUrl.replace(/\/+$/, "").replace(/\/auth\/v1$/, ""),
    anonKey: await keyOf("anon"),
    serviceRoleKey: await keyOf("service_role"),
  };
}

/** As lines of an app's `.env`: the names Supabase's own guides use. */
export function clientKeysText(keys: ClientKeys): string {
  return [
    `SUPABASE_URL=${keys.url}`,
    `SUPABASE_ANON_KEY=${keys.anonKey}`,
    `SUPABASE_SERVICE_ROLE_KEY=${keys.serviceRoleKey}`,
  ].join("\n");
}
