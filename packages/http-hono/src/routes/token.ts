import { AuthError } from "@latchkey/domain";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { handleAuthErrors } from "../errors/error-response.ts";
import { presentSession } from "../present/session.ts";
import { readJson } from "../read-json.ts";
import { requestContext } from "../request-context.ts";
import { PasswordGrantBody, PkceGrantBody, RefreshGrantBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";

export const tokenRoutes = ({ auth, clientAddress }: RouteDeps) =>
  new Hono<AppEnv>()
    // compat: GoTrue answers these with other statuses on /token than elsewhere.
    .onError(handleAuthErrors({ user_banned: 400, email_provider_disabled: 422, phone_provider_disabled: 422 }))
    .post("/token", async (c) => {
      const context = requestContext(c, clientAddress);
      switch (c.req.query("grant_type")) {
        case "password": {
          const body = await readJson(c, PasswordGrantBody);
          const grant = await auth.signInWithPassword({ email: body.email, phone: body.phone, password: body.password ?? "", context });
          return c.json(presentSession(grant));
        }
        case "pkce": {
          const body = await readJson(c, PkceGrantBody);
          const grant = await auth.exchangeAuthCode({ authCode: body.auth_code ?? "", codeVerifier: body.code_verifier ?? "", context });
          return c.json(presentSession(grant));
        }
        case "refresh_token": {
          const body = await readJson(c, RefreshGrantBody);
          return c.json(presentSession(await auth.refreshSession({ refreshToken: body.refresh_token ?? "", context })));
        }
        // Grants of features Latchkey does not have yet, answered as GoTrue answers them switched off.
        case "web3":
          throw new AuthError("web3_provider_disabled", "Web3 provider is disabled");
        case "id_token":
          throw new AuthError("provider_disabled", "No OAuth provider is enabled for ID token sign-in");
        default:
          throw new AuthError("invalid_credentials", "unsupported_grant_type");
      }
    });
