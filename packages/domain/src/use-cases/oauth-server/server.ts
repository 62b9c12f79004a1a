import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { OAuthClient } from "../../model/oauth-client.ts";
import { isUuid } from "../../model/uuid.ts";

// What the OAuth server's use cases share.

/** OAUTH_SERVER_ENABLED, as GoTrue's middleware answers it off. */
export function assertServerEnabled(deps: Deps): void {
  if (!deps.policy.oauthServer.enabled) throw new AuthError("feature_disabled", "OAuth server is disabled");
}

/** A client by its id, if it exists and is not deleted; null for an id that cannot be one. */
export async function findClient(deps: Deps, clientId: string): Promise<OAuthClient | null> {
  return isUuid(clientId) ? deps.stores.oauthClients.find(clientId) : null;
}
