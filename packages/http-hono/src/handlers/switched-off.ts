import { AuthError, type ErrorCode } from "@latchkey/domain";
import type { Handler, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { pathId } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { EnrollFactorBody } from "../request/schemas.ts";
import type { HandlerDeps } from "./deps.ts";

// The endpoints of features Latchkey does not have yet (SAML, passkeys, the OAuth server,
// SCIM, MFA factors), answered as GoTrue answers them when they are switched off, so that a client
// shows the right message rather than a bare 404. Each gives way to the real thing when its feature lands.

/** A handler that answers as GoTrue answers a switched-off feature. */
export const off =
  (code: ErrorCode, message: string): Handler<AppEnv> =>
  () => {
    throw new AuthError(code, message);
  };

export const samlOff = off("saml_provider_disabled", "SAML 2.0 is disabled");
export const passkeysOff = off("passkey_disabled", "Passkeys are disabled");
export const oauthServerOff = off("feature_disabled", "OAuth server is disabled");
export const scimOff = off("feature_disabled", "SCIM server is disabled");
export const customProvidersOff = off("feature_disabled", "Custom OAuth providers are disabled");

/** The factor endpoints refuse anonymous users before anything else, as GoTrue's do. */
export const notAnonymous: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("principal").user.isAnonymous) {
    throw new AuthError("no_authorization", "Anonymous user not allowed to perform these actions", {
      case: "anonymous_caller",
    });
  }
  await next();
};

/** POST /factors: no factor type can be enrolled. */
export const enrollFactor = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, EnrollFactorBody);
  switch (body.factor_type ?? "totp") {
    case "totp":
      throw new AuthError("mfa_totp_enroll_not_enabled", "MFA enroll is disabled for TOTP");
    case "phone":
      throw new AuthError("mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone");
    case "webauthn":
      throw new AuthError("mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn");
    default:
      throw new AuthError("validation_failed", "factor_type needs to be totp, phone, or webauthn");
  }
};

/** /factors/<id>/…: with no factors, no id names one. */
export const factorNotFound = (): Handler<AppEnv> => (c) => {
  pathId(c, "factor_id");
  throw new AuthError("mfa_factor_not_found", "Factor not found");
};

/** GET /admin/users/<id>/factors: the user's factors, of which there are none. */
export const listUserFactors =
  ({ auth }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    await auth.admin.getUser({ userId: pathId(c, "user_id") });
    return c.json([]);
  };

/** PUT and DELETE /admin/users/<id>/factors/<factor id>. */
export const userFactorNotFound =
  ({ auth }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    await auth.admin.getUser({ userId: pathId(c, "user_id") });
    pathId(c, "factor_id");
    throw new AuthError("mfa_factor_not_found", "Factor not found");
  };
