import { AuthError, type ErrorCode, isUuid } from "@latchkey/domain";
import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { errorResponse, handleAuthErrors } from "../errors/error-response.ts";
import { withQuery } from "../present/redirect.ts";
import { requireUser } from "../middleware/require-user.ts";
import { readJson } from "../read-json.ts";
import { EnrollFactorBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";

/**
 * The endpoints of features Latchkey does not have yet (SAML, manual identity linking, passkeys, the OAuth server,
 * SCIM, MFA factors, OAuth sign-in), answered as GoTrue answers them when they are switched off, so that a client
 * shows the right message rather than a bare 404. Each gives way to the real thing when its feature lands.
 */
/** A handler that answers as GoTrue answers a switched-off feature. */
export const off = (code: ErrorCode, message: string) => () => {
  throw new AuthError(code, message);
};

export const switchedOffRoutes = ({ auth }: RouteDeps) => {
  const samlOff = off("saml_provider_disabled", "SAML 2.0 is disabled");
  const passkeysOff = off("passkey_disabled", "Passkeys are disabled");
  const oauthServerOff = off("feature_disabled", "OAuth server is disabled");
  const notAnonymous = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    if (!c.get("principal").user.isAnonymous) return next();
    return errorResponse(c, new AuthError("no_authorization", "Anonymous user not allowed to perform these actions"), 403);
  };
  const factorNotFound = (c: Context<AppEnv>) => {
    if (!isUuid(c.req.param("factor_id") ?? "")) {
      return errorResponse(c, new AuthError("validation_failed", "factor_id must be an UUID"), 404);
    }
    throw new AuthError("mfa_factor_not_found", "Factor not found");
  };

  return (
    new Hono<AppEnv>()
      .onError(handleAuthErrors())
      .post("/sso", samlOff)
      .get("/sso/saml/metadata", samlOff)
      .post("/sso/saml/acs", samlOff)
      .all("/passkeys/*", passkeysOff)
      .all("/passkeys", passkeysOff)
      .get("/.well-known/oauth-authorization-server", oauthServerOff)
      .all("/oauth/*", oauthServerOff)
      .all("/scim/v2/*", off("feature_disabled", "SCIM server is disabled"))
      // With only JWT_SECRET there is no public key to publish: GoTrue answers the same.
      .get("/.well-known/jwks.json", (c) => c.json({ keys: [] }))
      // OAuth sign-in: no provider is enabled, so every one is unsupported, and no callback has a state to match
      // (GoTrue sends a callback it cannot match to SITE_URL, the error in the query).
      .get("/authorize", (c) => {
        const provider = c.req.query("provider") ?? "";
        throw new AuthError("validation_failed", `Unsupported provider: Provider ${provider} could not be found`);
      })
      .on(["GET", "POST"], "/callback", (c) => {
        const missing = !c.req.query("state");
        const params = {
          error: "invalid_request",
          error_code: missing ? "bad_oauth_callback" : "bad_oauth_state",
          error_description: missing ? "OAuth state parameter missing" : "OAuth state not found or expired",
        };
        return c.redirect(withQuery(auth.policy.redirect.siteUrl, params), 303);
      })
      .use("/user/identities/*", requireUser(auth))
      .all("/user/identities/*", off("manual_linking_disabled", "Manual linking is disabled"))
      .use("/user/oauth/grants", requireUser(auth))
      .all("/user/oauth/grants", oauthServerOff)
      .use("/factors", requireUser(auth), notAnonymous)
      .use("/factors/*", requireUser(auth), notAnonymous)
      .post("/factors", async (c) => {
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
      })
      .post("/factors/:factor_id/challenge", factorNotFound)
      .post("/factors/:factor_id/verify", factorNotFound)
      .delete("/factors/:factor_id", factorNotFound)
  );
};
