import { OAUTH_SCOPES } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { HandlerDeps } from "./deps.ts";

/** How long verifiers may keep the keys: GoTrue's, and what auth-js and Supabase's docs count on. */
const CACHE = "public, max-age=600";

/**
 * GET /.well-known/jwks.json: the public half of every asymmetric key of the ring, the signer and those that only
 * verify (a key rotated in or out), so that other services verify tokens without a secret that could mint them.
 * HMAC keys are never published: with only JWT_SECRET the list is empty, as GoTrue's is.
 */
export const jwks =
  ({ signingKeys }: HandlerDeps): Handler<AppEnv> =>
  (c) => {
    c.header("Cache-Control", CACHE);
    return c.json({ keys: signingKeys.jwks });
  };

/**
 * GET /.well-known/openid-configuration: where the keys are, for verifiers that discover them from the issuer, and
 * with the OAuth server on, its endpoints and what it supports (GoTrue's document, but for what differs:
 * docs/compatibility.md, "OAuth server").
 */
export const openidConfiguration =
  ({ auth, signingKeys }: HandlerDeps): Handler<AppEnv> =>
  (c) => {
    const issuer = auth.policy.accessToken.issuer;
    c.header("Cache-Control", CACHE);
    return c.json({
      issuer,
      jwks_uri: `${issuer.replace(/\/+$/, "")}/.well-known/jwks.json`,
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: signingKeys.algorithms,
      ...(auth.policy.oauthServer.enabled ? oauthServerMetadata(auth, signingKeys) : {}),
    });
  };

/** GET /.well-known/oauth-authorization-server (RFC 8414): the OAuth server's metadata. */
export const oauthAuthorizationServer =
  ({ auth, signingKeys }: HandlerDeps): Handler<AppEnv> =>
  (c) => {
    c.header("Cache-Control", CACHE);
    const issuer = auth.policy.accessToken.issuer;
    return c.json({
      issuer,
      jwks_uri: `${issuer.replace(/\/+$/, "")}/.well-known/jwks.json`,
      ...oauthServerMetadata(auth, signingKeys),
    });
  };

function oauthServerMetadata(auth: HandlerDeps["auth"], signingKeys: HandlerDeps["signingKeys"]) {
  const base = auth.policy.accessToken.issuer.replace(/\/+$/, "");
  const { allowDynamicRegistration } = auth.policy.oauthServer;
  const asymmetric = signingKeys.algorithms.filter((alg) => alg !== "HS256");
  return {
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    ...(allowDynamicRegistration ? { registration_endpoint: `${base}/oauth/clients/register` } : {}),
    // openid only where an id_token can be verified by its client: with a key of JWT_KEYS.
    scopes_supported: OAUTH_SCOPES.filter((scope) => scope !== "openid" || asymmetric.length > 0),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    code_challenge_methods_supported: ["S256"],
    claims_supported: CLAIMS,
  };
}

const CLAIMS = [
  "sub",
  "aud",
  "iss",
  "exp",
  "iat",
  "auth_time",
  "nonce",
  "email",
  "email_verified",
  "phone_number",
  "phone_number_verified",
  "name",
  "picture",
  "preferred_username",
  "updated_at",
];
