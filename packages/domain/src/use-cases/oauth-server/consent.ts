import type { Deps, Principal } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { OAuthAuthorization, OAuthConsent } from "../../model/oauth-authorization.ts";
import { scopesOf } from "../../model/oauth-authorization.ts";
import type { OAuthClient } from "../../model/oauth-client.ts";
import { isAllowedRedirect } from "../../model/redirect.ts";
import type { Stores } from "../../ports/stores.ts";
import { oauthCodeDigest } from "../../services/tokens/digests.ts";
import { errorRedirect } from "./authorize.ts";
import { assertServerEnabled, findClient } from "./server.ts";

/** An authorization code: 256 random bits, exchanged once, within the request's life. */
const CODE_BYTES = 32;

/** Who asks about an authorization request: the signed-in user, from a page of this origin (null: no browser). */
export interface ConsentCaller {
  readonly principal: Principal;
  readonly authorizationId: string;
  readonly origin: string | null;
}

/** What the consent page shows: the request, its client and the user; or, consent given before, where to go now. */
export type AuthorizationView =
  | {
      readonly kind: "details";
      readonly authorization: OAuthAuthorization;
      readonly client: OAuthClient;
    }
  | { readonly kind: "approved"; readonly redirectUrl: string };

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: AuthError };

/**
 * GET /oauth/authorizations/<id>: the request, for the signed-in user's consent page. The first read binds it to
 * that user; when the user's consent to the client already covers every scope asked, it is approved at once and the
 * answer is where to send the browser (GoTrue's remembered consent). Only that user may read it again.
 */
export async function getAuthorization(deps: Deps, caller: ConsentCaller): Promise<AuthorizationView> {
  assertServerEnabled(deps);
  assertOrigin(deps, caller.origin);
  const userId = caller.principal.user.id;
  const outcome = await deps.tx.run(
    async (stores): Promise<Outcome<{ auth: OAuthAuthorization; code: string | null }>> => {
      const found = await pendingOf(deps, stores, caller.authorizationId, "authorization request cannot be processed");
      if (!found.ok) return found;
      let auth = found.value;
      if (auth.userId !== null && auth.userId !== userId) return { ok: false, error: notFound() };
      let code: string | null = null;
      if (auth.userId === null) {
        auth = { ...auth, userId };
        const consent = await stores.oauthConsents.findActive(userId, auth.clientId);
        if (consent !== null && scopesOf(auth.scope).every((scope) => consent.scopes.includes(scope))) {
          code = deps.random.token(CODE_BYTES);
          auth = approved(deps, auth, code);
        }
        await stores.oauthAuthorizations.update(auth);
      }
      return { ok: true, value: { auth, code } };
    },
  );
  if (!outcome.ok) throw outcome.error;
  const { auth, code } = outcome.value;
  if (code !== null) return { kind: "approved", redirectUrl: successRedirect(auth, code) };
  const client = await findClient(deps, auth.clientId);
  if (!client) throw notFound();
  return { kind: "details", authorization: auth, client };
}

/**
 * POST /oauth/authorizations/<id>/consent: the user's answer. Approved, the request gets its code, the consent is
 * remembered (with what was allowed before), and the answer is the client's redirect URI with the code and state;
 * denied, the same URI with RFC 6749's `access_denied`.
 */
export async function decideConsent(
  deps: Deps,
  caller: ConsentCaller & { readonly action: string | undefined },
): Promise<{ redirectUrl: string }> {
  assertServerEnabled(deps);
  assertOrigin(deps, caller.origin);
  if (caller.action !== "approve" && caller.action !== "deny") {
    throw new AuthError("validation_failed", "action must be 'approve' or 'deny'");
  }
  const userId = caller.principal.user.id;
  const outcome = await deps.tx.run(async (stores): Promise<Outcome<string>> => {
    const found = await pendingOf(deps, stores, caller.authorizationId, "authorization request is no longer pending");
    if (!found.ok) return found;
    const auth = found.value;
    if (auth.userId !== userId) return { ok: false, error: notFound() };
    if (caller.action === "deny") {
      await stores.oauthAuthorizations.update({ ...auth, status: "denied" });
      const description = "User denied the request";
      return {
        ok: true,
        value: errorRedirect(auth.redirectUri, { error: "access_denied", description, state: auth.state }),
      };
    }
    const code = deps.random.token(CODE_BYTES);
    const approval = approved(deps, auth, code);
    await stores.oauthAuthorizations.update(approval);
    await rememberConsent(deps, stores, approval);
    return { ok: true, value: successRedirect(approval, code) };
  });
  if (!outcome.ok) throw outcome.error;
  return { redirectUrl: outcome.value };
}

/**
 * The request of that id, locked, while it can still be answered. An expired one is marked so (committed, though
 * the request fails) and is not found; one already answered is `message`.
 */
async function pendingOf(
  deps: Deps,
  stores: Stores,
  id: string,
  message: string,
): Promise<Outcome<OAuthAuthorization>> {
  const auth = await stores.oauthAuthorizations.lock(id);
  if (!auth) return { ok: false, error: notFound() };
  if (deps.clock.now().getTime() >= auth.expiresAt.getTime()) {
    if (auth.status !== "expired") await stores.oauthAuthorizations.update({ ...auth, status: "expired" });
    return { ok: false, error: notFound() };
  }
  if (auth.status !== "pending") return { ok: false, error: new AuthError("validation_failed", message) };
  return { ok: true, value: auth };
}

function approved(deps: Deps, auth: OAuthAuthorization, code: string): OAuthAuthorization {
  return { ...auth, status: "approved", codeDigest: oauthCodeDigest(deps.secrets, code), approvedAt: deps.clock.now() };
}

/** The user's consent to the client, now covering this request's scopes too. */
async function rememberConsent(deps: Deps, stores: Stores, auth: OAuthAuthorization): Promise<void> {
  const userId = auth.userId as string;
  const before = await stores.oauthConsents.findActive(userId, auth.clientId);
  const consent: OAuthConsent = {
    id: before?.id ?? deps.random.uuid(),
    userId,
    clientId: auth.clientId,
    scopes: [...new Set([...(before?.scopes ?? []), ...scopesOf(auth.scope)])],
    grantedAt: deps.clock.now(),
    revokedAt: null,
  };
  await stores.oauthConsents.save(consent);
}

/** The client's redirect URI with the code and the state. */
function successRedirect(auth: OAuthAuthorization, code: string): string {
  const url = new URL(auth.redirectUri);
  url.searchParams.set("code", code);
  if (auth.state) url.searchParams.set("state", auth.state);
  return url.toString();
}

/**
 * security: the consent page is the app's, on SITE_URL or URI_ALLOW_LIST; a browser request from any other origin is
 * refused, as GoTrue does (requests without an Origin, from servers and apps, carry a bearer token no page can read).
 */
function assertOrigin(deps: Deps, origin: string | null): void {
  if (origin === null || origin === "") return;
  if (!isAllowedRedirect(origin, deps.policy.redirect)) {
    throw new AuthError("validation_failed", "unauthorized request origin");
  }
}

const notFound = () => new AuthError("oauth_authorization_not_found", "authorization not found");
