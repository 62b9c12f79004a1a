import { createCustomProviderRuntime } from "@latchkey/adapters-oauth";
import type { CustomProviderRuntime } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/** CUSTOM_OAUTH_*: what providers admins add need at run time, while they are switched on; none otherwise. */
export function createConfiguredCustomProviders(config: Config): CustomProviderRuntime | null {
  const { customOAuth } = config;
  if (!customOAuth.enabled) return null;
  const base = (customOAuth.externalUrl ?? config.api.externalUrl).replace(/\/+$/, "");
  return createCustomProviderRuntime({ redirectUri: `${base}/callback`, allowLoopback: customOAuth.allowLoopbackUrls });
}
