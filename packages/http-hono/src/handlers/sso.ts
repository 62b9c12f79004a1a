import { type Auth, AuthError, type CompleteSamlResult } from "@latchkey/domain";
import type { Handler, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { redirectedFailure } from "../errors/error-response.ts";
import { errorParams, withFragment, withQuery } from "../present/redirect.ts";
import { readForm, readJson } from "../request/read-json.ts";
import { SsoBody } from "../request/schemas.ts";

// SAML single sign-on: the sign-in's start, our service provider's metadata, and the ACS.

/** GoTrue's answer on /sso and /sso/saml/* while SAML_ENABLED is off, before anything else is looked at. */
export const samlOn =
  (auth: Auth): MiddlewareHandler<AppEnv> =>
  async (_c, next) => {
    if (!auth.policy.saml.enabled) throw new AuthError("saml_provider_disabled", "SAML 2.0 is disabled");
    await next();
  };

/**
 * POST /sso: the identity provider's URL, to send the browser to; `{ url }` with `skip_http_redirect` (auth-js's
 * signInWithSSO), else a 303 to it.
 */
export const start = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, SsoBody);
  const { url } = await c.var.auth.sso.start({
    providerId: body.provider_id,
    domain: body.domain,
    redirectTo: [body.redirect_to],
    codeChallenge: body.code_challenge,
    codeChallengeMethod: body.code_challenge_method,
    context: c.get("caller"),
  });
  return body.skip_http_redirect === true ? c.json({ url }) : c.redirect(url, 303);
};

/** GET /sso/saml/metadata: our metadata, cached briefly; `?download=true` as a file that says how long it is valid. */
export const metadata = (): Handler<AppEnv> => async (c) => {
  const download = c.req.query("download") === "true";
  const { xml, maxAgeSeconds } = await c.var.auth.sso.serviceProviderMetadata({ download });
  c.header("Content-Type", "application/xml");
  c.header("Cache-Control", `public, max-age=${maxAgeSeconds}`);
  if (download) c.header("Content-Disposition", 'attachment; filename="metadata.xml"');
  return c.body(xml);
};

/**
 * POST /sso/saml/acs: the identity provider's answer, posted by the browser. It always ends in a redirect: a failure
 * to SITE_URL with the error in the query (GoTrue's behaviour: the response's XML never goes back), a session to the
 * sign-in's target in the fragment (implicit flow), or a code in its query (PKCE).
 */
export const acs =
  (auth: Auth): Handler<AppEnv> =>
  async (c) => {
    let result: CompleteSamlResult;
    try {
      result = await c.var.auth.sso.completeSaml({ form: await readForm(c), context: c.get("caller") });
    } catch (thrown) {
      const { error, status } = redirectedFailure(c, thrown);
      return c.redirect(withQuery(auth.policy.redirect.siteUrl, errorParams(status, error.code, error.message)), 303);
    }
    if (result.kind === "auth_code") return c.redirect(withQuery(result.redirectTo, { code: result.authCode }), 302);
    const { grant } = result;
    // GoTrue's keys, in its (alphabetical) order.
    const fragment = {
      access_token: grant.accessToken,
      expires_at: String(grant.expiresAt),
      expires_in: String(grant.expiresIn),
      refresh_token: grant.refreshToken,
      token_type: grant.tokenType,
    };
    return c.redirect(withFragment(result.redirectTo, fragment), 302);
  };
