import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { OAuthClient, TokenEndpointAuthMethod } from "../../model/oauth-client.ts";
import { findClient } from "./server.ts";

/** How a client presented itself at the token endpoint: where its id (and secret) came from decides the method. */
export interface ClientCredentials {
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  /** `client_secret_basic` for an Authorization: Basic header; else `client_secret_post` with a secret, `none`. */
  readonly method: TokenEndpointAuthMethod;
}

const invalidClient = (message: string) => new AuthError("invalid_client", message);

/**
 * The client a token request is from, authenticated as it registered: a confidential client by its secret, with
 * the method it registered (a secret sent in the body does not do for a client_secret_basic client), compared in
 * constant time; a public client by nothing (PKCE binds its codes), and never with a secret. Every failure is RFC
 * 6749's `invalid_client`, and says no more than GoTrue does.
 */
export async function authenticateClient(deps: Deps, credentials: ClientCredentials): Promise<OAuthClient> {
  if (!credentials.clientId) throw invalidClient("client_id is required");
  const client = await findClient(deps, credentials.clientId);
  if (!client) throw invalidClient("Invalid client credentials");
  if (credentials.method !== client.tokenEndpointAuthMethod) {
    throw invalidClient(
      `invalid authentication method: client is registered for '${client.tokenEndpointAuthMethod}' but '${credentials.method}' was used`,
    );
  }
  if (client.clientType === "public") {
    if (credentials.clientSecret) throw invalidClient("public clients must not provide client_secret");
    return client;
  }
  const secret = credentials.clientSecret ?? "";
  if (secret === "" || client.secretDigest === null) throw invalidClient("Invalid client credentials");
  if (!deps.secrets.equal(deps.secrets.sha256(secret), client.secretDigest)) {
    throw invalidClient("Invalid client credentials");
  }
  return client;
}
