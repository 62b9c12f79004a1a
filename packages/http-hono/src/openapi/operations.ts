import * as v from "valibot";
import * as body from "../request/schemas.ts";
import { json, noContent, type OperationDoc, redirect } from "./operation.ts";
import * as out from "./response-schemas.ts";

// Each endpoint of the route table (routes.ts) in words, with its query, body and answers: the rest of what the
// OpenAPI description says. A test holds the two to each other: no route without its entry here, no entry without
// its route.

const redirectTo = { redirect_to: "Where to send the browser afterwards; must be allowed by URI_ALLOW_LIST." };
const pkceQuery = {
  code_challenge: "PKCE: the challenge, for a code exchanged at POST /token?grant_type=pkce.",
  code_challenge_method: "PKCE: `s256` or `plain`.",
};
const page = { page: "The page, from 1.", per_page: "Items a page (at most 1000)." };
const skipRedirect = { skip_http_redirect: "`true`: answer `{ url }` rather than redirecting." };

/** POST /token's bodies, one a grant type. */
const TokenBody = v.union([
  body.PasswordGrantBody,
  body.RefreshGrantBody,
  body.PkceGrantBody,
  body.IdTokenGrantBody,
  body.Web3GrantBody,
]);

/** POST /oauth/token's parameters (RFC 6749), as a form or JSON; read as the grant type needs them. */
const OAuthTokenParams = v.object({
  grant_type: v.picklist(["authorization_code", "refresh_token"]),
  code: v.optional(v.string()),
  redirect_uri: v.optional(v.string()),
  code_verifier: v.optional(v.string()),
  refresh_token: v.optional(v.string()),
  resource: v.optional(v.string()),
  client_id: v.optional(v.string()),
  client_secret: v.optional(v.string()),
});

/** Apple's form_post callback. */
const FormCallbackParams = v.object({
  code: v.optional(v.string()),
  state: v.optional(v.string()),
  user: v.optional(v.string()),
  error: v.optional(v.string()),
});

const user = json(out.User, "The user");
const session = json(out.Session, "The session, with the user");
const empty = json(out.Empty);
const backToApp = redirect("To the app (or SITE_URL), with a session, a code or an error");

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  "GET /health": {
    tag: "service",
    summary: "Liveness: the server answers (the database is not checked)",
    responses: { 200: json(out.Health) },
  },
  "GET /ready": {
    tag: "service",
    ours: true,
    summary: "Readiness: each dependency checked, `ok` or `unavailable`",
    responses: { 200: json(out.Readiness, "Ready"), 503: json(out.Readiness, "A dependency is unavailable") },
  },
  "GET /settings": {
    tag: "service",
    summary: "The public switches: providers on, sign-up, autoconfirm",
    responses: { 200: json(out.PublicSettings) },
  },
  "GET /.well-known/jwks.json": {
    tag: "service",
    summary: "The public keys that verify access tokens",
    responses: { 200: json(out.Jwks) },
  },
  "GET /.well-known/openid-configuration": {
    tag: "service",
    summary: "OpenID Connect discovery",
    responses: { 200: json(out.ServerMetadata) },
  },
  "GET /openapi.json": {
    tag: "service",
    ours: true,
    summary: "This description",
    responses: { 200: json(out.OpenApi) },
  },

  "POST /signup": {
    tag: "signIn",
    summary: "Sign up with an email or a phone and a password; with neither, an anonymous user",
    query: redirectTo,
    body: body.SignupBody,
    responses: { 200: json(out.SignUpAnswer, "A session when signed in at once, else the user to confirm") },
  },
  "POST /token": {
    tag: "signIn",
    summary: "Sign in, refresh, or exchange: the grant type says which",
    query: { grant_type: "`password`, `refresh_token`, `pkce`, `id_token` or `web3`." },
    body: TokenBody,
    responses: { 200: session },
  },
  "POST /otp": {
    tag: "signIn",
    summary: "Send a one-time code or magic link by mail or SMS",
    query: redirectTo,
    body: body.OtpBody,
    responses: { 200: json(out.MaybeMessageId, "Sent; an SMS's message id") },
  },
  "POST /magiclink": {
    tag: "signIn",
    summary: "Send a magic link",
    query: redirectTo,
    body: body.MagicLinkBody,
    responses: { 200: empty },
  },
  "GET /verify": {
    tag: "signIn",
    summary: "Follow a link from a mail: verify its token and go back to the app",
    query: { token: "The link's token.", type: "What the link is for (`signup`, `recovery`, ...).", ...redirectTo },
    responses: { 303: backToApp },
  },
  "POST /verify": {
    tag: "signIn",
    summary: "Verify a code or a token hash",
    body: body.VerifyBody,
    responses: { 200: json(out.VerifyAnswer) },
  },
  "POST /recover": {
    tag: "signIn",
    summary: "Send a password recovery link",
    query: redirectTo,
    body: body.RecoverBody,
    responses: { 200: empty },
  },
  "POST /resend": {
    tag: "signIn",
    summary: "Send a confirmation mail or SMS again",
    query: redirectTo,
    body: body.ResendBody,
    responses: { 200: json(out.MaybeMessageId, "Sent; an SMS's message id") },
  },

  "GET /user": { tag: "user", summary: "The signed-in user", responses: { 200: user } },
  "PUT /user": {
    tag: "user",
    summary: "Change the user's email, phone, password or metadata",
    query: redirectTo,
    body: body.UpdateUserBody,
    responses: { 200: user },
  },
  "GET /reauthenticate": {
    tag: "user",
    summary: "Send a code to confirm a password change",
    responses: { 200: json(out.MaybeMessageId, "Sent; an SMS's message id") },
  },
  "POST /logout": {
    tag: "user",
    summary: "Sign out: this session, the others, or all",
    query: { scope: "`global` (the default), `local` or `others`." },
    responses: { 204: noContent },
  },

  "GET /authorize": {
    tag: "providers",
    summary: "Sign in with an external provider: off to the provider",
    query: {
      provider: "The provider's name, or `custom:<identifier>`.",
      scopes: "More scopes to ask for, separated by spaces.",
      ...redirectTo,
      ...pkceQuery,
      invite_token: "An invitation's token, to accept it by signing in with the provider.",
    },
    responses: { 302: redirect("To the provider, or back to the app with an error") },
  },
  "GET /callback": {
    tag: "providers",
    summary: "Where the provider sends the browser back",
    query: { code: "The provider's code.", state: "The flow's state.", error: "The provider's error, if any." },
    responses: { 302: backToApp, 303: redirect("To SITE_URL with an error, when the flow is unknown") },
  },
  "POST /callback": {
    tag: "providers",
    summary: "Apple's form_post callback, sent on to GET /callback",
    form: FormCallbackParams,
    responses: { 303: redirect("To GET /callback with the form's fields as its query") },
  },
  "GET /user/identities/authorize": {
    tag: "providers",
    summary: "Link an external identity to the signed-in user",
    query: { provider: "The provider's name.", scopes: "More scopes.", ...redirectTo, ...pkceQuery, ...skipRedirect },
    responses: { 200: json(out.Url, "The provider's URL"), 302: redirect("To the provider") },
  },
  "DELETE /user/identities/{identity_id}": {
    tag: "providers",
    summary: "Unlink an identity from the signed-in user",
    responses: { 200: empty },
  },

  "POST /sso": {
    tag: "sso",
    feature: "SAML_ENABLED",
    summary: "Start a SAML sign-in, by domain or by provider id",
    body: body.SsoBody,
    responses: { 200: json(out.Url, "The identity provider's URL"), 303: redirect("To the identity provider") },
  },
  "GET /sso/saml/metadata": {
    tag: "sso",
    feature: "SAML_ENABLED",
    summary: "This service provider's SAML metadata",
    query: { download: "`true`: as a file, valid for five years." },
    responses: { 200: { description: "The metadata", media: "application/xml" } },
  },
  "POST /sso/saml/acs": {
    tag: "sso",
    feature: "SAML_ENABLED",
    summary: "The assertion consumer service: the identity provider's answer",
    form: v.object({ SAMLResponse: v.string(), RelayState: v.optional(v.string()) }),
    responses: { 302: backToApp, 303: redirect("To SITE_URL with an error") },
  },

  "POST /factors": {
    tag: "mfa",
    summary: "Enroll a second factor (TOTP, phone or WebAuthn)",
    body: body.EnrollFactorBody,
    responses: { 200: json(out.EnrolledFactor) },
  },
  "POST /factors/{factor_id}/challenge": {
    tag: "mfa",
    summary: "Challenge a factor",
    body: body.ChallengeFactorBody,
    responses: { 200: json(out.Challenge) },
  },
  "POST /factors/{factor_id}/verify": {
    tag: "mfa",
    summary: "Answer a challenge: the session, now at aal2",
    body: body.VerifyFactorBody,
    responses: { 200: session },
  },
  "DELETE /factors/{factor_id}": {
    tag: "mfa",
    summary: "Remove one of the user's factors",
    responses: { 200: json(out.Id, "The factor removed") },
  },

  "POST /passkeys/authentication/options": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "Begin signing in with a passkey",
    responses: { 200: json(out.Ceremony) },
  },
  "POST /passkeys/authentication/verify": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "Finish signing in with a passkey",
    body: body.PasskeyAnswerBody,
    responses: { 200: session },
  },
  "POST /passkeys/registration/options": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "Begin registering a passkey for the signed-in user",
    responses: { 200: json(out.Ceremony) },
  },
  "POST /passkeys/registration/verify": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "Finish registering a passkey",
    body: body.PasskeyAnswerBody,
    responses: { 200: json(out.Passkey) },
  },
  "GET /passkeys": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "The signed-in user's passkeys",
    responses: { 200: json(v.array(out.Passkey)) },
  },
  "PATCH /passkeys/{passkey_id}": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "Rename a passkey",
    body: body.PasskeyUpdateBody,
    responses: { 200: json(out.Passkey) },
  },
  "DELETE /passkeys/{passkey_id}": {
    tag: "passkeys",
    feature: "PASSKEY_ENABLED",
    summary: "Remove a passkey",
    responses: { 204: noContent },
  },

  "POST /invite": {
    tag: "admin",
    summary: "Invite a user by mail",
    query: redirectTo,
    body: body.InviteBody,
    responses: { 200: user },
  },
  "GET /admin/users": {
    tag: "admin",
    summary: "A page of users; the total in X-Total-Count, the pages in Link",
    query: {
      ...page,
      sort: "`created_at asc` or `created_at desc` (the default).",
      filter: "Text found in the email, the phone or the user metadata's name.",
      email: "Users with this email.",
      phone: "Users with this phone number.",
    },
    responses: { 200: json(out.UserList) },
  },
  "POST /admin/users": {
    tag: "admin",
    summary: "Create a user",
    body: body.AdminUserBody,
    responses: { 200: user },
  },
  "POST /admin/users/{user_id}": {
    tag: "admin",
    summary: "Create a user with the id given",
    body: body.AdminUserBody,
    responses: { 200: user },
  },
  "GET /admin/users/{user_id}": { tag: "admin", summary: "A user", responses: { 200: user } },
  "PUT /admin/users/{user_id}": {
    tag: "admin",
    summary: "Change a user: addresses, password, metadata, role, ban",
    body: body.AdminUserBody,
    responses: { 200: user },
  },
  "DELETE /admin/users/{user_id}": {
    tag: "admin",
    summary: "Delete a user, for good or softly",
    body: body.AdminDeleteUserBody,
    responses: { 200: empty },
  },
  "POST /admin/generate_link": {
    tag: "admin",
    summary: "Make the link and code of a mail without sending it",
    query: redirectTo,
    body: body.GenerateLinkBody,
    responses: { 200: json(out.GeneratedLink, "The user, with the link and its code") },
  },
  "GET /admin/audit": {
    tag: "admin",
    summary: "A page of the audit log, newest first",
    query: { ...page, query: "Text found in the actor's name or email, or the action." },
    responses: { 200: json(v.array(out.AuditEntry)) },
  },
  "GET /admin/users/{user_id}/factors": {
    tag: "admin",
    summary: "A user's second factors",
    responses: { 200: json(v.array(out.Factor)) },
  },
  "PUT /admin/users/{user_id}/factors/{factor_id}": {
    tag: "admin",
    summary: "Rename a user's factor, or change its phone",
    body: body.AdminFactorBody,
    responses: { 200: json(out.Factor) },
  },
  "DELETE /admin/users/{user_id}/factors/{factor_id}": {
    tag: "admin",
    summary: "Remove a user's factor",
    responses: { 200: json(out.Factor, "The factor removed") },
  },
  "GET /admin/users/{user_id}/sessions": {
    tag: "admin",
    ours: true,
    summary: "A user's sessions, newest first",
    responses: { 200: json(out.AdminSessionList) },
  },
  "DELETE /admin/users/{user_id}/sessions": {
    tag: "admin",
    ours: true,
    summary: "Sign a user out everywhere: end every session",
    responses: { 200: empty },
  },
  "GET /admin/settings": {
    tag: "admin",
    ours: true,
    summary: "The settings the server started with, and where each came from; secrets redacted",
    responses: { 200: json(out.EffectiveSettings) },
  },
  "GET /admin/users/{user_id}/passkeys": {
    tag: "admin",
    feature: "PASSKEY_ENABLED",
    summary: "A user's passkeys",
    responses: { 200: json(v.array(out.Passkey)) },
  },
  "DELETE /admin/users/{user_id}/passkeys/{passkey_id}": {
    tag: "admin",
    feature: "PASSKEY_ENABLED",
    summary: "Remove a user's passkey",
    responses: { 204: noContent },
  },

  "GET /admin/oauth/clients": {
    tag: "adminOAuth",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "The OAuth server's clients",
    responses: { 200: json(out.OAuthClientList) },
  },
  "POST /admin/oauth/clients": {
    tag: "adminOAuth",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "Register a client; its secret is shown this once",
    body: body.OAuthClientBody,
    responses: { 201: json(out.OAuthClient, "The client, with its secret") },
  },
  "GET /admin/oauth/clients/{client_id}": {
    tag: "adminOAuth",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "A client",
    responses: { 200: json(out.OAuthClient) },
  },
  "PUT /admin/oauth/clients/{client_id}": {
    tag: "adminOAuth",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "Change a client's metadata",
    body: body.OAuthClientBody,
    responses: { 200: json(out.OAuthClient) },
  },
  "DELETE /admin/oauth/clients/{client_id}": {
    tag: "adminOAuth",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "Delete a client",
    responses: { 204: noContent },
  },
  "POST /admin/oauth/clients/{client_id}/regenerate_secret": {
    tag: "adminOAuth",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "Issue a client a new secret, shown this once",
    responses: { 200: json(out.OAuthClient, "The client, with its new secret") },
  },

  "GET /admin/sso/providers": {
    tag: "adminSso",
    feature: "SAML_ENABLED",
    summary: "The SAML identity providers",
    query: {
      resource_id: "Providers with this resource id.",
      resource_id_prefix: "Providers whose resource id starts so.",
    },
    responses: { 200: json(out.SsoProviderList) },
  },
  "POST /admin/sso/providers": {
    tag: "adminSso",
    feature: "SAML_ENABLED",
    summary: "Add a SAML identity provider",
    body: body.SsoProviderBody,
    responses: { 201: json(out.SsoProvider) },
  },
  "GET /admin/sso/providers/{idp_id}": {
    tag: "adminSso",
    feature: "SAML_ENABLED",
    summary: "A SAML identity provider, by id or `resource_id:<id>`",
    responses: { 200: json(out.SsoProvider) },
  },
  "PUT /admin/sso/providers/{idp_id}": {
    tag: "adminSso",
    feature: "SAML_ENABLED",
    summary: "Change a SAML identity provider",
    body: body.SsoProviderBody,
    responses: { 200: json(out.SsoProvider) },
  },
  "DELETE /admin/sso/providers/{idp_id}": {
    tag: "adminSso",
    feature: "SAML_ENABLED",
    summary: "Remove a SAML identity provider",
    responses: { 200: json(out.SsoProvider, "The provider removed") },
  },

  "GET /admin/custom-providers": {
    tag: "adminCustom",
    feature: "CUSTOM_OAUTH_ENABLED",
    summary: "The custom OAuth and OIDC providers",
    query: { type: "`oauth2` or `oidc`: only those." },
    responses: { 200: json(out.CustomProviderList) },
  },
  "POST /admin/custom-providers": {
    tag: "adminCustom",
    feature: "CUSTOM_OAUTH_ENABLED",
    summary: "Add a custom provider",
    body: body.CustomProviderBody,
    responses: { 201: json(out.CustomProvider) },
  },
  "GET /admin/custom-providers/{identifier}": {
    tag: "adminCustom",
    feature: "CUSTOM_OAUTH_ENABLED",
    summary: "A custom provider",
    responses: { 200: json(out.CustomProvider) },
  },
  "PUT /admin/custom-providers/{identifier}": {
    tag: "adminCustom",
    feature: "CUSTOM_OAUTH_ENABLED",
    summary: "Change a custom provider",
    body: body.CustomProviderBody,
    responses: { 200: json(out.CustomProvider) },
  },
  "DELETE /admin/custom-providers/{identifier}": {
    tag: "adminCustom",
    feature: "CUSTOM_OAUTH_ENABLED",
    summary: "Remove a custom provider",
    responses: { 204: noContent },
  },

  "GET /.well-known/oauth-authorization-server": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "The OAuth server's metadata (RFC 8414)",
    responses: { 200: json(out.ServerMetadata) },
  },
  "POST /oauth/clients/register": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "Dynamic client registration (RFC 7591)",
    body: body.OAuthClientBody,
    responses: { 201: json(out.OAuthClient, "The client, with its secret") },
  },
  "GET /oauth/authorize": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "A client's authorization request: to the app's consent page",
    query: {
      client_id: "The client.",
      redirect_uri: "One of the client's redirect URIs.",
      response_type: "`code`.",
      scope: "Scopes, separated by spaces.",
      state: "The client's state.",
      resource: "The resource the token is for (RFC 8707).",
      code_challenge: "PKCE: the challenge (S256).",
      code_challenge_method: "`S256`.",
      nonce: "OpenID Connect's nonce.",
    },
    responses: { 302: redirect("To the consent page, or back to the client with an error") },
  },
  "GET /oauth/authorizations/{authorization_id}": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "An authorization request, for the consent page",
    responses: { 200: json(out.AuthorizationView) },
  },
  "POST /oauth/authorizations/{authorization_id}/consent": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "The user's answer: approve or deny",
    body: body.ConsentBody,
    responses: { 200: json(out.RedirectUrl, "Where the app sends the browser next") },
  },
  "POST /oauth/token": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "The token endpoint (RFC 6749): a code or a refresh token for tokens",
    form: OAuthTokenParams,
    responses: { 200: json(out.OAuthTokens) },
  },
  "GET /oauth/userinfo": {
    tag: "oauthServer",
    feature: "OAUTH_SERVER_ENABLED",
    summary: "The claims the token's scopes allow",
    responses: { 200: json(out.UserInfo) },
  },
  "GET /user/oauth/grants": {
    tag: "oauthServer",
    summary: "The clients the signed-in user allowed",
    responses: { 200: json(v.array(out.Grant)) },
  },
  "DELETE /user/oauth/grants": {
    tag: "oauthServer",
    summary: "Withdraw a client's grant",
    query: { client_id: "The client." },
    responses: { 204: noContent },
  },
};
