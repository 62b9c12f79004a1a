import { AuthError } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { bearerToken } from "../middleware/require-user.ts";
import { presentSession } from "../present/session.ts";
import { readJson } from "../request/read-json.ts";
import { IdTokenGrantBody, PasswordGrantBody, PkceGrantBody, RefreshGrantBody } from "../request/schemas.ts";

/** POST /token: a session for a password, a PKCE auth code, a provider's id_token or a refresh token, by `grant_type`. */
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
    // Grants of features Latchkey does not have yet, answered as GoTrue answers them switched off.
    case "web3":
      throw new AuthError("web3_provider_disabled", "Web3 provider is disabled");
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
