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
 * GET /.well-known/openid-configuration: where the keys are, for verifiers that discover them from the issuer.
 * compat: GoTrue also lists its OAuth server's endpoints; Latchkey has no OAuth server, so it names only what it
 * serves (docs/compatibility.md, Signing keys).
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
    });
  };
