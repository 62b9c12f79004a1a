import { AuthError } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { bearerToken } from "../middleware/require-user.ts";
import { presentSession } from "../present/session.ts";
import { readJson } from "../request/read-json.ts";
import {
  IdTokenGrantBody,
  PasswordGrantBody,
  PkceGrantBody,
  RefreshGrantBody,
  Web3GrantBody,
} from "../request/schemas.ts";

/**
 * POST /token: a session for a password, a PKCE auth code, a provider's id_token, a wallet's signed message (web3)
 * or a refresh token, by `grant_type`.
 */
export const token = (): Handler<AppEnv> => async (c) => {
  const context = c.get("caller");
  switch (c.req.query("grant_type")) {
    case "password": {
      const body = await readJson(c, PasswordGrantBody);
      const grant = await c.var.auth.signInWithPassword({
        email: body.email,
        phone: body.phone,
        password: body.password ?? "",
        context,
      });
      return c.json(presentSession(grant));
    }
    case "pkce": {
      const body = await readJson(c, PkceGrantBody);
      const grant = await c.var.auth.exchangeAuthCode({
        authCode: body.auth_code ?? "",
        codeVerifier: body.code_verifier ?? "",
        context,
      });
      return c.json(presentSession(grant));
    }
    case "refresh_token": {
      const body = await readJson(c, RefreshGrantBody);
      return c.json(
        presentSession(await c.var.auth.refreshSession({ refreshToken: body.refresh_token ?? "", context })),
      );
    }
    case "web3": {
      const body = await readJson(c, Web3GrantBody);
      const grant = await c.var.auth.signInWithWeb3({
        chain: body.chain,
        message: body.message,
        signature: body.signature,
        context,
      });
      return c.json(presentSession(grant));
    }
    case "id_token": {
      const body = await readJson(c, IdTokenGrantBody);
      // link_identity: the identity joins the signed-in user of the Authorization header.
      const linkingTarget = body.link_identity
        ? await c.var.auth.authenticate({ accessToken: bearerToken(c), audience: undefined })
        : undefined;
      const grant = await c.var.auth.oauth.signInWithIdToken({
        provider: body.provider,
        idToken: body.id_token,
        accessToken: body.access_token,
        nonce: body.nonce,
        linkingTarget,
        context,
      });
      return c.json(presentSession(grant));
    }
    default:
      throw new AuthError("invalid_credentials", "unsupported_grant_type");
  }
};
