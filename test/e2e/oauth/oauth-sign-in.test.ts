import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminApi, client, fragmentOf } from "../support.ts";
import { Browser, browse, SITE } from "./browser.ts";
import { CLIENT_ID, CLIENT_SECRET, closeStandIns, type GitHubPerson, startGitHub, startGoogle } from "./providers.ts";

let github: Awaited<ReturnType<typeof startGitHub>>;
let google: Awaited<ReturnType<typeof startGoogle>>;
let server: TestServer;

const octocat: GitHubPerson = {
  id: 583231,
  login: "octocat",
  name: "The Octocat",
  emails: [{ email: "octocat@example.com", verified: true, primary: true }],
};

beforeAll(async () => {
  github = await startGitHub();
  google = await startGoogle();
  server = await startTestServer({
    AUTH_EXTERNAL_GITHUB_ENABLED: "true",
    AUTH_EXTERNAL_GITHUB_CLIENT_ID: CLIENT_ID,
    AUTH_EXTERNAL_GITHUB_SECRET: CLIENT_SECRET,
    AUTH_EXTERNAL_GITHUB_URL: github.url,
    AUTH_EXTERNAL_GOOGLE_ENABLED: "true",
    AUTH_EXTERNAL_GOOGLE_CLIENT_ID: `${CLIENT_ID},another-app`,
    AUTH_EXTERNAL_GOOGLE_SECRET: CLIENT_SECRET,
    AUTH_EXTERNAL_GOOGLE_URL: google.url,
    AUTH_SECURITY_MANUAL_LINKING_ENABLED: "true",
    AUTH_MAILER_AUTOCONFIRM: "true",
  });
});
afterAll(async () => {
  await server.close();
  await closeStandIns();
});
afterEach(() => github.refuse(false));

describe("OAuth sign-in through the official client", () => {
  it("reports exactly the enabled providers in /settings, under both names of the OIDC ones", async () => {
    const { external } = (await (await server.fetch("/settings")).json()) as { external: Record<string, boolean> };
    expect(external).toMatchObject({
      github: true,
      google: true,
      gitlab: false,
      linkedin: false,
      linkedin_oidc: false,
    });
  });

  it("signs in with the implicit flow: the session arrives in the fragment, with the provider's token", async () => {
    github.signIn(octocat);
    const app = client(server);
    const { data, error } = await app.signInWithOAuth({
      provider: "github",
      options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true, scopes: "read:org" },
    });
    expect(error).toBeNull();
    const landed = await browse(server, data.url!);
    expect(`${landed.origin}${landed.pathname}`).toBe(`${SITE}/welcome`);
    const fragment = fragmentOf(landed);
    expect(fragment).toMatchObject({ provider: "github", token_type: "bearer", expires_in: "3600" });
    expect(fragment["provider_token"]).toMatch(/^gho_/);
    // The provider saw the client's scope added to GitHub's own.
    expect(github.requestsTo("GET /login/oauth/authorize").at(-1)?.query.get("scope")).toBe("user:email read:org");

    const { data: session, error: setError } = await app.setSession({
      access_token: fragment["access_token"]!,
      refresh_token: fragment["refresh_token"]!,
    });
    expect(setError).toBeNull();
    const user = session.user!;
    expect(user.email).toBe("octocat@example.com");
    expect(user.app_metadata).toMatchObject({ provider: "github", providers: ["github"] });
    expect(user.user_metadata).toMatchObject({ user_name: "octocat", full_name: "The Octocat", email_verified: true });
    expect(user.identities).toEqual([
      expect.objectContaining({
        provider: "github",
        id: "583231",
        identity_data: expect.objectContaining({ sub: "583231" }),
      }),
    ]);
    const claims = (await app.getClaims()).data?.claims;
    expect(claims?.["amr"]).toEqual([expect.objectContaining({ method: "oauth" })]);
  });

  it("signs in with PKCE: a code in the query, exchanged for the session and the provider's token", async () => {
    github.signIn(octocat);
    const app = client(server, { flowType: "pkce" });
    const { data } = await app.signInWithOAuth({
      provider: "github",
      options: { redirectTo: `${SITE}/auth/callback`, skipBrowserRedirect: true },
    });
    const landed = await browse(server, data.url!);
    const code = landed.searchParams.get("code");
    expect(code).toBeTruthy();
    const { data: exchanged, error } = await app.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    expect(exchanged.session?.provider_token).toMatch(/^gho_/);
    expect(exchanged.user?.email).toBe("octocat@example.com");
    // The same person reaches the same account.
    expect((await app.getUserIdentities()).data?.identities).toHaveLength(1);
    // A code is exchanged once.
    expect((await client(server, { flowType: "pkce" }).exchangeCodeForSession(code!)).error).not.toBeNull();
  });

  it("links a GitHub sign-in to the account that holds its verified address", async () => {
    const admin = await adminApi(server);
    const { data: made } = await admin.createUser({
      email: "mona@example.com",
      password: "correct horse 1",
      email_confirm: true,
    });
    github.signIn({ id: 9001, login: "mona", emails: [{ email: "Mona@Example.com", verified: true, primary: true }] });
    const app = client(server);
    const { data } = await app.signInWithOAuth({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    const fragment = fragmentOf(await browse(server, data.url!));
    const { data: session } = await app.setSession({
      access_token: fragment["access_token"]!,
      refresh_token: fragment["refresh_token"]!,
    });
    expect(session.user?.id).toBe(made.user!.id);
    expect(session.user?.app_metadata["providers"]).toEqual(["email", "github"]);
  });

  it("links and unlinks identities of the signed-in user (linkIdentity, getUserIdentities, unlinkIdentity)", async () => {
    // Linking through a provider completes at the code exchange, in the app that holds the PKCE verifier.
    const app = client(server, { flowType: "pkce" });
    const { error } = await app.signUp({ email: "linker@example.com", password: "correct horse 2" });
    expect(error).toBeNull();
    github.signIn({
      id: 7007,
      login: "linker-gh",
      emails: [{ email: "elsewhere@example.com", verified: true, primary: true }],
    });
    const { data, error: linkError } = await app.linkIdentity({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    expect(linkError).toBeNull();
    const code = (await browse(server, data.url!)).searchParams.get("code");
    expect(code).toBeTruthy();
    const exchanged = await app.exchangeCodeForSession(code!);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user?.email).toBe("linker@example.com");
    const { data: listed } = await app.getUserIdentities();
    expect(listed?.identities.map((identity) => identity.provider)).toEqual(["email", "github"]);

    const gh = listed!.identities.find((identity) => identity.provider === "github")!;
    expect((await app.unlinkIdentity(gh)).error).toBeNull();
    await app.refreshSession();
    expect((await app.getUserIdentities()).data?.identities.map((identity) => identity.provider)).toEqual(["email"]);
    const last = (await app.getUserIdentities()).data!.identities[0]!;
    expect((await app.unlinkIdentity(last)).error).toMatchObject({ code: "single_identity_not_deletable" });
  });

  it("signs in with a Google id_token (signInWithIdToken), its nonce compared hashed", async () => {
    const app = client(server);
    const token = await google.idToken({ sub: "g-123", email: "native@example.com", name: "Native App" }, "raw-nonce");
    const { data, error } = await app.signInWithIdToken({ provider: "google", token, nonce: "raw-nonce" });
    expect(error).toBeNull();
    expect(data.user?.email).toBe("native@example.com");
    expect(data.user?.identities?.[0]).toMatchObject({ provider: "google", id: "g-123" });

    const wrongNonce = await app.signInWithIdToken({ provider: "google", token, nonce: "another-nonce" });
    expect(wrongNonce.error?.message).toBe("Nonces mismatch");
    const foreign = await google.idToken({ sub: "g-123", aud: "someone-else" });
    expect((await app.signInWithIdToken({ provider: "google", token: foreign })).error).not.toBeNull();
  });
});

describe("linking a native sign-in's id_token (linkIdentity with a token)", () => {
  it("links the Google identity to the signed-in user, refusing one that belongs to someone else", async () => {
    const app = client(server);
    expect((await app.signUp({ email: "native-linker@example.com", password: "correct horse 3" })).error).toBeNull();
    const token = await google.idToken({ sub: "g-link-1", email: "native-linker@gmail.example" });
    const { data, error } = await app.linkIdentity({ provider: "google", token });
    expect(error).toBeNull();
    expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(["email", "google"]);

    const other = client(server);
    await other.signUp({ email: "someone-else@example.com", password: "correct horse 4" });
    // Another token for the same Google account: each token signs in (or links) once.
    const again = await google.idToken({ sub: "g-link-1", email: "native-linker@gmail.example", jti: "second" });
    const taken = await other.linkIdentity({ provider: "google", token: again });
    expect(taken.error).toMatchObject({ code: "identity_already_exists" });
  });
});

describe("refusals, sent back to the app", () => {
  it("sends an unknown, replayed or missing state to SITE_URL with bad_oauth_state", async () => {
    github.signIn(octocat);
    const { data } = await client(server).signInWithOAuth({
      provider: "github",
      options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true },
    });
    // The browser's first stop at the provider, and its way back, kept to be replayed.
    const browser = new Browser(server);
    const toProvider = (await browser.fetch(data.url!)).headers.get("location")!;
    const callback = (await browser.fetch(toProvider)).headers.get("location")!;
    expect((await browser.fetch(callback)).status).toBe(302);
    const replayed = await browser.fetch(callback);
    expect(replayed.status).toBe(303);
    const refused = new URL(replayed.headers.get("location")!);
    expect(refused.origin + refused.pathname).toBe(`${SITE}/`);
    expect(Object.fromEntries(refused.searchParams)).toEqual({
      error: "invalid_request",
      error_code: "bad_oauth_state",
      error_description: "OAuth state not found or expired",
    });
    const missing = new URL((await server.fetch("/callback?code=x", { redirect: "manual" })).headers.get("location")!);
    expect(missing.searchParams.get("error_code")).toBe("bad_oauth_callback");
  });

  it("reads a callback POSTed as a form (Apple's form_post), and refuses a state older than five minutes", async () => {
    github.signIn(octocat);
    const browser = new Browser(server);
    const start = async () => {
      const { data } = await client(server).signInWithOAuth({
        provider: "github",
        options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true },
      });
      const toProvider = (await browser.fetch(data.url!)).headers.get("location")!;
      return new URL((await browser.fetch(toProvider)).headers.get("location")!);
    };
    // The provider's page POSTs across sites, which carries no SameSite=Lax cookie: the server answers with a
    // GET of the same callback, which does.
    const posted = await start();
    const answer = await browser.fetch(`${posted.origin}${posted.pathname}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: posted.searchParams.toString(),
    });
    expect(answer.status).toBe(303);
    const landed = await browser.browse(new URL(answer.headers.get("location")!, posted));
    expect(fragmentOf(landed)["provider"]).toBe("github");

    const late = await start();
    const { schema } = server.db;
    await server.db.db.update(schema.oauthFlows).set({ createdAt: new Date(Date.now() - 301_000) });
    const refused = await browser.fetch(late);
    expect(refused.status).toBe(303);
    expect(new URL(refused.headers.get("location")!).searchParams.get("error_description")).toBe(
      "OAuth state has expired",
    );
  });

  it("passes the provider's refusal to the app's target", async () => {
    github.refuse(true);
    const { data } = await client(server).signInWithOAuth({
      provider: "github",
      options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true },
    });
    const landed = await browse(server, data.url!);
    expect(landed.pathname).toBe("/welcome");
    expect(landed.searchParams.get("error")).toBe("access_denied");
    expect(fragmentOf(landed)["error"]).toBe("access_denied");
  });

  it("refuses a banned user as access_denied, and an unknown or disabled provider as validation_failed", async () => {
    github.signIn({
      id: 4242,
      login: "banned",
      emails: [{ email: "banned@example.com", verified: true, primary: true }],
    });
    const first = await client(server).signInWithOAuth({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    const fragment = fragmentOf(await browse(server, first.data.url!));
    const admin = await adminApi(server);
    const userId = JSON.parse(Buffer.from(fragment["access_token"]!.split(".")[1]!, "base64url").toString())
      .sub as string;
    await admin.updateUserById(userId, { ban_duration: "24h" });

    const again = await client(server).signInWithOAuth({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    const refused = await browse(server, again.data.url!);
    expect(Object.fromEntries(refused.searchParams)).toMatchObject({
      error: "access_denied",
      error_code: "user_banned",
    });

    for (const [provider, message] of [
      ["gitlab", "Unsupported provider: provider is not enabled"],
      ["myspace", "Unsupported provider: Provider myspace could not be found"],
    ] as const) {
      const response = await server.fetch(`/authorize?provider=${provider}`, { redirect: "manual" });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error_code: "validation_failed", msg: message });
    }
  });
});

describe("signups switched off", () => {
  it("refuses a new person as access_denied signup_disabled", async () => {
    const closed = await startTestServer({
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      AUTH_EXTERNAL_GITHUB_CLIENT_ID: CLIENT_ID,
      AUTH_EXTERNAL_GITHUB_SECRET: CLIENT_SECRET,
      AUTH_EXTERNAL_GITHUB_URL: github.url,
      AUTH_DISABLE_SIGNUP: "true",
    });
    try {
      github.signIn({
        id: 1,
        login: "newcomer",
        emails: [{ email: "new@example.com", verified: true, primary: true }],
      });
      const { data } = await client(closed).signInWithOAuth({
        provider: "github",
        options: { redirectTo: SITE, skipBrowserRedirect: true },
      });
      const landed = await browse(closed, data.url!);
      expect(Object.fromEntries(landed.searchParams)).toMatchObject({
        error: "access_denied",
        error_code: "signup_disabled",
      });
    } finally {
      await closed.close();
    }
  });
});
