import { type Handler, Hono, type MiddlewareHandler } from "hono";
import type { AppEnv, Endpoint } from "./app-env.ts";
import * as adminAudit from "./handlers/admin-audit.ts";
import * as adminConsole from "./handlers/admin-console.ts";
import * as adminLinks from "./handlers/admin-links.ts";
import * as adminUsers from "./handlers/admin-users.ts";
import * as customProviders from "./handlers/custom-providers.ts";
import type { HandlerDeps } from "./handlers/deps.ts";
import * as factors from "./handlers/factors.ts";
import * as health from "./handlers/health.ts";
import * as invite from "./handlers/invite.ts";
import * as oauth from "./handlers/oauth.ts";
import * as oauthClients from "./handlers/oauth-clients.ts";
import * as oauthServer from "./handlers/oauth-server.ts";
import { openApi } from "./handlers/openapi.ts";
import * as passkeys from "./handlers/passkeys.ts";
import * as recovery from "./handlers/recovery.ts";
import * as resend from "./handlers/resend.ts";
import * as signInByMail from "./handlers/sign-in-by-mail.ts";
import * as signUp from "./handlers/sign-up.ts";
import * as sso from "./handlers/sso.ts";
import * as ssoProviders from "./handlers/sso-providers.ts";
import * as off from "./handlers/switched-off.ts";
import * as token from "./handlers/token.ts";
import * as user from "./handlers/user.ts";
import * as verify from "./handlers/verify.ts";
import * as wellKnown from "./handlers/well-known.ts";
import { grantNeedsCaptcha, requireCaptcha } from "./middleware/captcha.ts";
import { noHead } from "./middleware/no-head.ts";
import { requireAdmin, requireUser } from "./middleware/require-user.ts";
import { openApiDocument, type RouteEntry } from "./openapi/document.ts";

/**
 * The API, one endpoint a line: its guards, then its handler, which reads the request, calls one use case and
 * presents the result. Where GoTrue answers an error differently at one endpoint, errors/error-status.ts says so
 * under the same name.
 */
export function apiRoutes(deps: HandlerDeps): { api: Hono<AppEnv>; table: readonly RouteEntry[] } {
  const api = new Hono<AppEnv>();
  const table: RouteEntry[] = [];
  const signedIn = requireUser(deps.auth);
  /** Also a third-party client's token (the OAuth server's): its userinfo, and signing its session out. */
  const signedInAnyClient = requireUser(deps.auth, { thirdParty: true });
  const admin = requireAdmin();
  const captcha = requireCaptcha(deps.auth);
  const grantCaptcha = requireCaptcha(deps.auth, grantNeedsCaptcha);
  // What each guard asks of the caller, for the description of the API (openapi/).
  const access = new Map<unknown, RouteEntry["access"]>([
    [signedIn, "user"],
    [signedInAnyClient, "user"],
    [admin, "admin"],
  ]);
  const captchas = new Set<unknown>([captcha, grantCaptcha]);
  const route = (endpoint: Endpoint, ...handlers: (MiddlewareHandler<AppEnv> | Handler<AppEnv>)[]) => {
    const [method, path] = endpoint.split(" ") as [string, string];
    const named: MiddlewareHandler<AppEnv> = (c, next) => {
      c.set("endpoint", endpoint);
      return next();
    };
    api.on(method, path, named, ...handlers);
    // The catch-alls below stand for features switched off, not endpoints of their own.
    if (method === "ALL") return;
    const guard = handlers.map((handler) => access.get(handler)).find((kind) => kind !== undefined);
    table.push({ endpoint, access: guard ?? "anyone", captcha: handlers.some((handler) => captchas.has(handler)) });
  };

  route("GET /health", health.health(deps));
  route("GET /ready", health.ready(deps));
  route("GET /settings", health.settings(deps));
  route("GET /.well-known/jwks.json", wellKnown.jwks(deps));
  route("GET /.well-known/openid-configuration", wellKnown.openidConfiguration(deps));
  route("GET /openapi.json", openApi(table, deps.version));

  // Signing up and in
  route("POST /signup", captcha, signUp.signUp());
  route("POST /token", grantCaptcha, token.token());
  route("POST /otp", captcha, signInByMail.sendOtp());
  route("POST /magiclink", captcha, signInByMail.sendMagicLink());
  // Following a link uses its token up: a HEAD (mail scanners, link previews) must not.
  route("GET /verify", noHead("GET, POST"), verify.followLink(deps));
  route("POST /verify", verify.verify());
  route("POST /recover", captcha, recovery.recover());
  route("POST /resend", captcha, resend.resend());

  // The signed-in user
  route("GET /user", signedIn, user.getUser());
  route("PUT /user", signedIn, user.updateUser());
  route("GET /reauthenticate", noHead("GET"), signedIn, user.reauthenticate());
  route("POST /logout", signedInAnyClient, user.logout());

  // External providers
  route("GET /authorize", oauth.authorize(deps));
  route("GET /callback", oauth.callback(deps));
  route("POST /callback", oauth.formCallback());
  route("GET /user/identities/authorize", signedIn, oauth.linkIdentity());
  route("DELETE /user/identities/:identity_id", signedIn, oauth.unlinkIdentity());

  // SAML single sign-on: switched on or not before anything else
  const samlOn = sso.samlOn(deps.auth);
  route("POST /sso", samlOn, captcha, sso.start());
  route("GET /sso/saml/metadata", samlOn, sso.metadata());
  route("POST /sso/saml/acs", samlOn, sso.acs(deps.auth));

  // Second factors: anonymous users have none
  route("POST /factors", signedIn, off.notAnonymous, factors.enroll());
  route("POST /factors/:factor_id/challenge", signedIn, off.notAnonymous, factors.challenge());
  route("POST /factors/:factor_id/verify", signedIn, off.notAnonymous, factors.verify());
  route("DELETE /factors/:factor_id", signedIn, off.notAnonymous, factors.unenroll());

  // Passkeys: switched on or not before anything else; anonymous users register none
  const passkeysOn = passkeys.passkeysOn(deps.auth);
  route("POST /passkeys/authentication/options", passkeysOn, captcha, passkeys.authenticationOptions());
  route("POST /passkeys/authentication/verify", passkeysOn, passkeys.authenticationVerify());
  route("POST /passkeys/registration/options", passkeysOn, signedIn, off.notAnonymous, passkeys.registrationOptions());
  route("POST /passkeys/registration/verify", passkeysOn, signedIn, off.notAnonymous, passkeys.registrationVerify());
  route("GET /passkeys", passkeysOn, signedIn, passkeys.list());
  route("PATCH /passkeys/:passkey_id", passkeysOn, signedIn, passkeys.rename());
  route("DELETE /passkeys/:passkey_id", passkeysOn, signedIn, passkeys.remove());

  // Administration
  route("POST /invite", admin, invite.invite());
  route("GET /admin/users", admin, adminUsers.listUsers(deps));
  route("POST /admin/users", admin, adminUsers.createUser());
  route("POST /admin/users/:user_id", admin, adminUsers.createUser());
  route("GET /admin/users/:user_id", admin, adminUsers.getUser());
  route("PUT /admin/users/:user_id", admin, adminUsers.updateUser());
  route("DELETE /admin/users/:user_id", admin, adminUsers.deleteUser());
  // Latchkey's own, for an admin console (GoTrue has none of them): a user's sessions, signing the user out
  // everywhere, and the settings the server started with.
  route("GET /admin/users/:user_id/sessions", admin, adminConsole.listSessions());
  route("DELETE /admin/users/:user_id/sessions", admin, adminConsole.signOutUser());
  route("GET /admin/settings", admin, adminConsole.settings(deps));
  route("POST /admin/generate_link", admin, adminLinks.generateLink(deps));
  route("GET /admin/audit", admin, adminAudit.listAudit());
  route("GET /admin/users/:user_id/factors", admin, factors.adminList());
  route("PUT /admin/users/:user_id/factors/:factor_id", admin, factors.adminUpdate());
  route("DELETE /admin/users/:user_id/factors/:factor_id", admin, factors.adminDelete());
  route("GET /admin/oauth/clients", admin, oauthClients.list());
  route("POST /admin/oauth/clients", admin, oauthClients.register());
  route("GET /admin/oauth/clients/:client_id", admin, oauthClients.get());
  route("PUT /admin/oauth/clients/:client_id", admin, oauthClients.update());
  route("DELETE /admin/oauth/clients/:client_id", admin, oauthClients.remove());
  route("POST /admin/oauth/clients/:client_id/regenerate_secret", admin, oauthClients.regenerateSecret());
  route("GET /admin/sso/providers", admin, ssoProviders.list());
  route("POST /admin/sso/providers", admin, ssoProviders.create());
  route("GET /admin/sso/providers/:idp_id", admin, ssoProviders.get());
  route("PUT /admin/sso/providers/:idp_id", admin, ssoProviders.update());
  route("DELETE /admin/sso/providers/:idp_id", admin, ssoProviders.remove());
  // Custom OAuth/OIDC providers: an admin's, then switched on or not before anything else is looked at
  const customOn = customProviders.customProvidersOn(deps.auth);
  route("GET /admin/custom-providers", admin, customOn, customProviders.list());
  route("POST /admin/custom-providers", admin, customOn, customProviders.create());
  route("GET /admin/custom-providers/:identifier", admin, customOn, customProviders.get());
  route("PUT /admin/custom-providers/:identifier", admin, customOn, customProviders.update());
  route("DELETE /admin/custom-providers/:identifier", admin, customOn, customProviders.remove());
  route("GET /admin/users/:user_id/passkeys", admin, passkeys.adminList());
  route("DELETE /admin/users/:user_id/passkeys/:passkey_id", admin, passkeys.adminDelete());

  // The OAuth server: third-party clients, the app's consent page, and the user's grants
  const serverOn = oauthServer.serverOn(deps.auth);
  route("GET /.well-known/oauth-authorization-server", serverOn, wellKnown.oauthAuthorizationServer(deps));
  route("POST /oauth/clients/register", serverOn, oauthClients.registerDynamically());
  route("GET /oauth/authorize", serverOn, oauthServer.authorize());
  route("GET /oauth/authorizations/:authorization_id", serverOn, signedIn, oauthServer.getAuthorization());
  route("POST /oauth/authorizations/:authorization_id/consent", serverOn, signedIn, oauthServer.consent());
  route("POST /oauth/token", serverOn, oauthServer.token());
  route("GET /oauth/userinfo", serverOn, signedInAnyClient, oauthServer.userInfo());
  route("GET /user/oauth/grants", signedIn, oauthServer.listGrants());
  route("DELETE /user/oauth/grants", signedIn, oauthServer.revokeGrant());

  // Features Latchkey does not have yet, answered as GoTrue answers them switched off (handlers/switched-off.ts)
  route("ALL /oauth/*", off.oauthServerOff);
  route("ALL /scim/v2/*", off.scimOff);
  route("ALL /admin/oauth/*", admin, off.oauthServerOff);
  // Any other method or path there, while switched off, as GoTrue answers before routing
  route("ALL /admin/custom-providers", admin, customOn);
  route("ALL /admin/custom-providers/*", admin, customOn);
  return { api, table };
}

/**
 * The description of the API without a server: the route table built on no dependencies, which its handlers'
 * factories only close over (`pnpm openapi-doc`, and the tests).
 */
export function describeApi(version: string): object {
  return openApiDocument(apiRoutes({ version } as HandlerDeps).table, { version });
}
