import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { principalOf, signedIn } from "../../testing/signed-in.ts";

const redirectUri = "https://app.example.com/callback";
const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

/** A signed-in user, a confidential client, and the steps of the flow as the client, browser and app take them. */
async function oauthWorld(options: TestAuthOptions = {}) {
  const world = await signedIn({
    ...options,
    policy: { redirect: { siteUrl: "https://app.example.com" }, ...options.policy },
  });
  const oauth = world.auth.oauthServer;
  const { client, secret } = await oauth.registerClient({
    metadata: { redirectUris: [redirectUri], clientName: "Acme" },
  });
  const credentials = { clientId: client.id, clientSecret: secret!, method: "client_secret_basic" as const };
  const principal = await principalOf(world, world.grant);
  const ask = async (query: Record<string, string> = {}) => {
    const { verifier, challenge } = pkce();
    const { location } = await oauth.authorize({
      clientId: client.id,
      redirectUri,
      scope: "openid email profile",
      state: "st4te",
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
      nonce: "n0nce",
      ...query,
    });
    return { verifier, location: new URL(location) };
  };
  const approve = async () => {
    const asked = await ask();
    const authorizationId = asked.location.searchParams.get("authorization_id")!;
    await oauth.getAuthorization({ principal, authorizationId, origin: "https://app.example.com" });
    const { redirectUrl } = await oauth.consent({ principal, authorizationId, origin: null, action: "approve" });
    return { verifier: asked.verifier, code: new URL(redirectUrl).searchParams.get("code")!, redirectUrl };
  };
  const exchange = (code: string, verifier: string, overrides: object = {}) =>
    oauth.token({
      credentials,
      request: { grantType: "authorization_code", code, codeVerifier: verifier, redirectUri, ...overrides },
      context,
    });
  return { ...world, oauth, client, secret, credentials, principal, ask, approve, exchange };
}

describe("authorizing a client", () => {
  it("sends the browser to the consent page with an authorization id, and the page sees the request", async () => {
    const { oauth, ask, principal, client } = await oauthWorld();
    const { location } = await ask();
    expect(location.origin + location.pathname).toBe("https://app.example.com/oauth/consent");
    const authorizationId = location.searchParams.get("authorization_id")!;
    const view = await oauth.getAuthorization({ principal, authorizationId, origin: null });
    expect(view.kind).toBe("details");
    if (view.kind !== "details") return;
    expect(view.client.id).toBe(client.id);
    expect(view.authorization).toMatchObject({
      scope: "openid email profile",
      userId: principal.user.id,
      state: "st4te",
    });
  });

  it("refuses an unknown client or a redirect URI not registered, without redirecting", async () => {
    const { oauth, client } = await oauthWorld();
    await failsWith("oauth_client_not_found", oauth.authorize({ clientId: crypto.randomUUID(), redirectUri }));
    await failsWith("validation_failed", oauth.authorize({ clientId: client.id, redirectUri: `${redirectUri}/other` }));
    await failsWith("validation_failed", oauth.authorize({ clientId: client.id }));
  });

  it.each([
    [{ codeChallengeMethod: "plain" }, "code_challenge_method must be 'S256'"],
    [{ codeChallenge: "" }, "PKCE flow requires"],
    [{ scope: "openid admin" }, "unsupported scope: admin"],
    [{ responseType: "token" }, "only response_type=code"],
  ])("sends other faults back to the client as invalid_request: %j", async (query, words) => {
    const { ask } = await oauthWorld();
    const { location } = await ask(query as Record<string, string>);
    expect(location.origin + location.pathname).toBe(redirectUri);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain(words);
    expect(location.searchParams.get("state")).toBe("st4te");
  });

  it("refuses openid without a publicly verifiable signing key", async () => {
    const world = await oauthWorld();
    (world.ports.signer as { publiclyVerifiable: boolean }).publiclyVerifiable = false;
    const { location } = await world.ask();
    expect(location.searchParams.get("error_description")).toContain("asymmetric signing key");
  });

  it("answers a denial with access_denied, and another user, or an origin not allowed, with nothing", async () => {
    const { oauth, ask, principal } = await oauthWorld();
    const authorizationId = (await ask()).location.searchParams.get("authorization_id")!;
    await failsWith(
      "validation_failed",
      oauth.getAuthorization({ principal, authorizationId, origin: "https://evil.example" }),
    );
    await oauth.getAuthorization({ principal, authorizationId, origin: null });
    const other = { ...principal, user: { ...principal.user, id: crypto.randomUUID() } };
    await failsWith(
      "oauth_authorization_not_found",
      oauth.consent({ principal: other, authorizationId, origin: null, action: "approve" }),
    );
    const { redirectUrl } = await oauth.consent({ principal, authorizationId, origin: null, action: "deny" });
    const url = new URL(redirectUrl);
    expect([url.searchParams.get("error"), url.searchParams.get("state")]).toEqual(["access_denied", "st4te"]);
    await failsWith(
      "validation_failed",
      oauth.consent({ principal, authorizationId, origin: null, action: "approve" }),
    );
  });

  it("expires requests after OAUTH_SERVER_AUTHORIZATION_TTL", async () => {
    const { oauth, ask, principal, clock } = await oauthWorld();
    const authorizationId = (await ask()).location.searchParams.get("authorization_id")!;
    clock.advance({ seconds: 601 });
    await failsWith(
      "oauth_authorization_not_found",
      oauth.getAuthorization({ principal, authorizationId, origin: null }),
    );
  });

  it("skips the consent page when the user's consent covers every scope asked", async () => {
    const { oauth, approve, ask, principal } = await oauthWorld();
    await approve();
    const authorizationId = (await ask({ scope: "email" })).location.searchParams.get("authorization_id")!;
    const view = await oauth.getAuthorization({ principal, authorizationId, origin: null });
    expect(view.kind).toBe("approved");
    if (view.kind === "approved") expect(new URL(view.redirectUrl).searchParams.get("code")).toMatch(/^[\w-]{43}$/);
  });
});

describe("exchanging the code", () => {
  it("gives the client a scoped session: access token with client_id and scope, refresh token, id_token", async () => {
    const { approve, exchange, client, user, ports } = await oauthWorld();
    const { code, verifier } = await approve();
    const tokens = await exchange(code, verifier);
    const claims = await ports.signer.verify(tokens.accessToken);
    expect(claims).toMatchObject({ sub: user.id, client_id: client.id, scope: "openid email profile" });
    expect((claims["amr"] as { method: string }[])[0]?.method).toBe("oauth_provider/authorization_code");
    const idToken = await ports.signer.verify(tokens.idToken!);
    expect(idToken).toMatchObject({
      sub: user.id,
      aud: client.id,
      nonce: "n0nce",
      email: user.email,
      email_verified: true,
    });
  });

  it("uses a code once: presented again, it fails and ends the session it gave", async () => {
    const { approve, exchange, oauth, credentials } = await oauthWorld();
    const { code, verifier } = await approve();
    const tokens = await exchange(code, verifier);
    await failsWith("invalid_grant", exchange(code, verifier));
    // RFC 6749's word for a refresh token whose session is gone.
    await failsWith(
      "invalid_grant",
      oauth.token({ credentials, request: { grantType: "refresh_token", refreshToken: tokens.refreshToken }, context }),
    );
  });

  it("refuses a wrong verifier, another redirect URI, and another client's code", async () => {
    const world = await oauthWorld();
    const { code, verifier } = await world.approve();
    await failsWith("invalid_grant", world.exchange(code, pkce().verifier));
    await failsWith("invalid_grant", world.exchange(code, verifier, { redirectUri: "https://app.example.com/other" }));
    const other = await world.oauth.registerClient({ metadata: { redirectUris: [redirectUri] } });
    const asOther = { clientId: other.client.id, clientSecret: other.secret!, method: "client_secret_basic" as const };
    await failsWith(
      "invalid_grant",
      world.oauth.token({
        credentials: asOther,
        request: { grantType: "authorization_code", code, codeVerifier: verifier },
        context,
      }),
    );
    // Still good for its own client, with the right verifier.
    await world.exchange(code, verifier);
  });

  it("authenticates the client as it registered", async () => {
    const { approve, oauth, credentials } = await oauthWorld();
    const { code, verifier } = await approve();
    const request = { grantType: "authorization_code", code, codeVerifier: verifier };
    await failsWith(
      "invalid_client",
      oauth.token({ credentials: { ...credentials, clientSecret: "wrong" }, request, context }),
    );
    await failsWith(
      "invalid_client",
      oauth.token({ credentials: { ...credentials, method: "client_secret_post" }, request, context }),
    );
    await failsWith(
      "invalid_client",
      oauth.token({ credentials: { ...credentials, clientId: crypto.randomUUID() }, request, context }),
    );
    await failsWith(
      "unsupported_grant_type",
      oauth.token({ credentials, request: { grantType: "password" }, context }),
    );
  });
});

describe("the client's session", () => {
  it("refreshes only through the client that holds it, and keeps its scope", async () => {
    const { approve, exchange, oauth, credentials, auth } = await oauthWorld();
    const { code, verifier } = await approve();
    const tokens = await exchange(code, verifier);
    const refreshed = await oauth.token({
      credentials,
      request: { grantType: "refresh_token", refreshToken: tokens.refreshToken },
      context,
    });
    expect(refreshed.scope).toBe("openid email profile");
    await failsWith("invalid_client", auth.refreshSession({ refreshToken: refreshed.refreshToken, context }));
  });

  it("answers userinfo by scope, and a revoked grant ends the client's sessions", async () => {
    const { approve, exchange, oauth, auth, principal, client, user } = await oauthWorld();
    const { code, verifier } = await approve();
    const tokens = await exchange(code, verifier);
    const asClient = await auth.authenticate({ accessToken: tokens.accessToken, thirdParty: true });
    // The account's own endpoints are the user's: the client's token is refused there.
    await failsWith("bad_jwt", auth.authenticate({ accessToken: tokens.accessToken }));
    expect(await oauth.userInfo({ principal: asClient })).toMatchObject({
      sub: user.id,
      email: user.email,
      email_verified: true,
    });
    expect((await oauth.listGrants({ principal })).map((grant) => grant.client.id)).toEqual([client.id]);
    await oauth.revokeGrant({ principal, clientId: client.id, context });
    expect(await oauth.listGrants({ principal })).toEqual([]);
    await failsWith("session_not_found", auth.authenticate({ accessToken: tokens.accessToken, thirdParty: true }));
    await failsWith("oauth_consent_not_found", oauth.revokeGrant({ principal, clientId: client.id, context }));
  });
});
