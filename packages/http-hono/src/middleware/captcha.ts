import type { Auth } from "@latchkey/domain";
import type { Context, MiddlewareHandler } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../app-env.ts";
import { readJson } from "../request/read-json.ts";

/** Where auth-js puts the token: `gotrue_meta_security.captcha_token` in the JSON body, and nowhere else. */
const CaptchaField = v.object({
  gotrue_meta_security: v.optional(v.nullable(v.object({ captcha_token: v.optional(v.nullable(v.string())) }))),
});

const BEARER = /^bearer\s+(\S+)\s*$/i;

/** Whether the request carries an admin token (service_role): servers calling on behalf of users need no captcha. */
async function isAdminCall(c: Context<AppEnv>): Promise<boolean> {
  const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
  if (!token) return false;
  return c.var.auth.authorizeAdmin({ accessToken: token }).then(
    () => true,
    () => false,
  );
}

/**
 * The captcha check of an endpoint (GoTrue's verifyCaptcha), before its handler reads anything else: off unless
 * SECURITY_CAPTCHA_ENABLED, skipped for admin tokens and where `applies` says the request is exempt (the refresh,
 * pkce and id_token grants). The body stays readable for the handler. `auth` says whether captcha is on; the
 * checks are the request's own use cases'.
 */
export function requireCaptcha(
  auth: Auth,
  applies: (c: Context<AppEnv>) => boolean = () => true,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!auth.captchaEnabled || !applies(c) || (await isAdminCall(c))) return next();
    const body = await readJson(c, CaptchaField);
    await c.var.auth.checkCaptcha({
      token: body.gotrue_meta_security?.captcha_token ?? undefined,
      ip: c.get("caller").ip,
    });
    await next();
  };
}

/** Grants a client holds a proof for already (a refresh token, a code and verifier, a provider's id_token). */
const EXEMPT_GRANTS: ReadonlySet<string> = new Set(["refresh_token", "pkce", "id_token"]);

/** POST /token: every grant but those. */
export const grantNeedsCaptcha = (c: Context<AppEnv>): boolean => !EXEMPT_GRANTS.has(c.req.query("grant_type") ?? "");
