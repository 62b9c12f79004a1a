import {
  type AuthError,
  type CompleteOAuthResult,
  OAUTH_FLOW_LIFETIME_SECONDS,
  OAuthProviderFailure,
} from "@latchkey/domain";
import type { Context, Handler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../app-env.ts";
import { reasonOf, redirectedFailure } from "../errors/error-response.ts";
import { statusOf } from "../errors/error-status.ts";
import { errorParams, withFragment, withQuery } from "../present/redirect.ts";
import { redirectCandidates } from "../request/envelope.ts";
import { readForm } from "../request/read-json.ts";
import type { HandlerDeps } from "./deps.ts";

/** The parameters of /authorize, in the client's order; the domain keeps the provider's and drops the rest. */
function startInput(c: Context<AppEnv>) {
  const query = new URL(c.req.url).searchParams;
  return {
    provider: query.get("provider") ?? "",
    scopes: query.get("scopes") ?? undefined,
    redirectTo: redirectCandidates(c),
    codeChallenge: query.get("code_challenge") ?? undefined,
    codeChallengeMethod: query.get("code_challenge_method") ?? undefined,
    inviteToken: query.get("invite_token") ?? undefined,
    params: [...query.entries()],
  };
}

/** One line naming the provider that could not be reached and why; the browser's app hears only the code. */
function logProviderFailure(c: Context<AppEnv>, error: AuthError): void {
  const provider = error.cause instanceof OAuthProviderFailure ? error.cause.provider : undefined;
  c.get("log").warn(
    { code: error.code, provider, reason: reasonOf(error.cause) },
    "OAuth provider could not be reached",
  );
}

/** The cookie of one flow: a browser may have several sign-ins under way, one a tab. */
const flowCookieName = (flowId: string) => `latchkey-oauth-${flowId}`;

/**
 * GET /authorize: off to the provider, the browser keeping the flow's secret (a cookie for the provider's callback
 * alone, as long as the flow lives) so that the sign-in can end only in this browser.
 */
export const authorize =
  ({ oauthFlowCookie }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const started = await c.var.auth.oauth.start(startInput(c));
    if (started.kind === "failed") {
      // Back to the app with the error, as a failed callback goes: the browser is on its way through, not a client
      // that reads a status.
      const { error } = started;
      const status = statusOf(error, c.get("endpoint"));
      logProviderFailure(c, error);
      c.set("errorCode", error.code);
      const failure = errorParams(status, error.code, error.message);
      return c.redirect(withFragment(withQuery(started.redirectTo, failure), failure), 302);
    }
    const { url, browserBinding } = started;
    if (browserBinding) {
      setCookie(c, flowCookieName(browserBinding.flowId), browserBinding.secret, {
        path: oauthFlowCookie.callbackPath(browserBinding.provider),
        maxAge: OAUTH_FLOW_LIFETIME_SECONDS,
        httpOnly: true,
        secure: oauthFlowCookie.secure,
        // Sent on the top-level GET that brings the browser back from the provider, never on requests other
        // sites make (a form POST callback is turned into such a GET first: see `callback`).
        sameSite: "Lax",
      });
    }
    return c.redirect(url, 302);
  };

/**
 * GET /user/identities/authorize: as /authorize, for an identity to link to the signed-in user. With
 * `skip_http_redirect=true` (auth-js's linkIdentity) the URL is the answer rather than a redirect.
 */
export const linkIdentity = (): Handler<AppEnv> => async (c) => {
  const started = await c.var.auth.oauth.start({ ...startInput(c), linkingTarget: c.get("principal") });
  if (started.kind === "failed") {
    // An app's request, answered in the error shape (503, Retry-After), logged as every outage is.
    throw started.error;
  }
  const { url } = started;
  return c.req.query("skip_http_redirect") === "true" ? c.json({ url }) : c.redirect(url, 302);
};

/** DELETE /user/identities/<identity_id> */
export const unlinkIdentity = (): Handler<AppEnv> => async (c) => {
  await c.var.auth.oauth.unlinkIdentity({
    principal: c.get("principal"),
    // The domain checks it, after whether linking is on at all, as GoTrue does.
    identityId: c.req.param("identity_id") ?? "",
    context: c.get("caller"),
  });
  return c.json({});
};

/**
 * POST /callback (Apple's form_post): the form's fields sent on to GET /callback as its query. A browser sends the
 * flow's SameSite=Lax cookie with a top-level GET from another site, not with another site's POST, so the
 * callback proper must be a GET; the relative `?…` keeps the path the browser used, whatever a proxy put before it.
 */
export const formCallback = (): Handler<AppEnv> => async (c) => {
  const query = new URLSearchParams(await readForm(c)).toString();
  return c.redirect(`?${query}`, 303);
};

/** Codes whose failure a browser app is told as `access_denied`, as GoTrue does. */
const DENIED = new Set(["signup_disabled", "user_banned", "provider_email_needs_verification"]);

/**
 * GET /callback: where the provider sends the browser back, with the secret the browser kept since /authorize. It
 * always ends in a redirect: a bad state (or another browser's) to SITE_URL with the error in the query, anything
 * else to the flow's target, a session in the fragment (implicit flow) or a code in the query (PKCE), an error in
 * both.
 */
export const callback =
  ({ auth }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    // The flow's cookie stays until it expires with the flow: the flow itself is used up below, whatever happens.
    const params = Object.fromEntries(new URL(c.req.url).searchParams);
    let result: CompleteOAuthResult;
    try {
      result = await c.var.auth.oauth.complete({
        params,
        browserBinding: (flowId) => getCookie(c, flowCookieName(flowId)),
        context: c.get("caller"),
      });
    } catch (thrown) {
      const { error, status } = redirectedFailure(c, thrown);
      return c.redirect(withQuery(auth.policy.redirect.siteUrl, errorParams(status, error.code, error.message)), 303);
    }
    switch (result.kind) {
      case "session": {
        const { grant, tokens } = result;
        // GoTrue's keys (alphabetical, as it writes them) and the specification's `provider`.
        const fragment = {
          access_token: grant.accessToken,
          expires_at: String(grant.expiresAt),
          expires_in: String(grant.expiresIn),
          provider: result.provider,
          ...(tokens.refreshToken === null ? {} : { provider_refresh_token: tokens.refreshToken }),
          provider_token: tokens.accessToken,
          refresh_token: grant.refreshToken,
          token_type: grant.tokenType,
        };
        return c.redirect(withFragment(result.redirectTo, fragment), 302);
      }
      case "auth_code":
        return c.redirect(withQuery(result.redirectTo, { code: result.authCode }), 302);
      case "provider_error": {
        // The provider's own words are its refusal of the person (access_denied), meant for the app.
        const refused = {
          error: result.error,
          ...(result.description ? { error_description: result.description } : {}),
        };
        return c.redirect(withFragment(withQuery(result.redirectTo, refused), refused), 302);
      }
      case "failed": {
        const { error, status } = redirectedFailure(c, result.error);
        // Messages of AuthErrors are written for clients; what went wrong inside is the cause, logged above.
        const failure = {
          ...errorParams(status, error.code, error.message),
          ...(DENIED.has(error.code) ? { error: "access_denied" } : {}),
        };
        return c.redirect(withFragment(withQuery(result.redirectTo, failure), failure), 302);
      }
    }
  };
