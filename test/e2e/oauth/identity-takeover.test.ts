import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, client, fragmentOf } from "../support.ts";
import { Browser, browse, SITE } from "./browser.ts";
import { CLIENT_ID, CLIENT_SECRET, closeStandIns, type GitHubPerson, startGitHub, startGoogle } from "./providers.ts";

// The attacks of the third review, step by step, through the official client: a GitHub stand-in that reports
// whatever addresses the attacker's account claims, verified or not, and a Google stand-in for the owner.

let github: Awaited<ReturnType<typeof startGitHub>>;
let google: Awaited<ReturnType<typeof startGoogle>>;

const providers = () => ({
  AUTH_EXTERNAL_GITHUB_ENABLED: "true",
  AUTH_EXTERNAL_GITHUB_CLIENT_ID: CLIENT_ID,
  AUTH_EXTERNAL_GITHUB_SECRET: CLIENT_SECRET,
  AUTH_EXTERNAL_GITHUB_URL: github.url,
  AUTH_EXTERNAL_GOOGLE_ENABLED: "true",
  AUTH_EXTERNAL_GOOGLE_CLIENT_ID: CLIENT_ID,
  AUTH_EXTERNAL_GOOGLE_SECRET: CLIENT_SECRET,
  AUTH_EXTERNAL_GOOGLE_URL: google.url,
  // The attacker's mail and then the owner's, to one address, within a test.
  AUTH_SMTP_MAX_FREQUENCY: "1",
  AUTH_RATE_LIMIT_EMAIL_SENT: "1000",
});

/** Manual linking on, addresses confirmed at signup: the attacker's own account is ready at once. */
const startLinkingServer = () =>
  startTestServer({ ...providers(), AUTH_SECURITY_MANUAL_LINKING_ENABLED: "true", AUTH_MAILER_AUTOCONFIRM: "true" });

let githubIds = 600;

/** An attacker's GitHub account, claiming `address` as its unverified primary one. */
const attackerClaiming = (address: string): GitHubPerson => ({
  id: ++githubIds,
  login: `mallory-${githubIds}`,
  name: "Your Bank's Support",
  emails: [{ email: address, verified: false, primary: true }],
});

/** A GitHub sign-in through the browser: the session it lands with, or the error. */
async function gitHubSignIn(server: TestServer) {
  const { data } = await client(server).signInWithOAuth({
    provider: "github",
    options: { redirectTo: SITE, skipBrowserRedirect: true },
  });
  const landed = await browse(server, data.url!);
  return { ...fragmentOf(landed), ...Object.fromEntries(landed.searchParams) };
}

beforeAll(async () => {
  github = await startGitHub();
  google = await startGoogle();
});
afterAll(closeStandIns);

describe("H1: a pre-account made by a provider sign-in with the owner's address, unverified", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(providers());
  });
  afterAll(() => server.close());

  it("keeps nothing of the attacker once the owner signs up and confirms by mail", async () => {
    const victim = "h1-signup@example.com";
    github.signIn(attackerClaiming(victim));
    expect((await gitHubSignIn(server))["error_code"]).toBe("provider_email_needs_verification");
    // The confirmation that sign-in caused reaches the owner, who ignores it.
    await server.mail.waitFor(victim);

    const owner = client(server);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await owner.signUp({ email: victim, password: "owner's own password" })).error).toBeNull();
    const ownMail = await server.mail.waitFor(victim, (mail) => server.mail.to(victim).indexOf(mail) === 1);
    const landed = await server.followLink(ownMail.link!);
    const session = fragmentOf(landed);
    await owner.setSession({ access_token: session["access_token"]!, refresh_token: session["refresh_token"]! });
    const { data } = await owner.getUser();
    expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(["email"]);
    expect(data.user?.user_metadata).not.toHaveProperty("name");

    // The attacker signs in with GitHub again: no session of the owner's account.
    const again = await gitHubSignIn(server);
    if (again["access_token"]) expect(claimsOf(again["access_token"])["sub"]).not.toBe(data.user!.id);
    expect((await owner.getUserIdentities()).data?.identities.map((identity) => identity.provider)).toEqual(["email"]);
  });

  it("keeps nothing of the attacker once the owner signs in by magic link", async () => {
    const victim = "h1-magic@example.com";
    github.signIn(attackerClaiming(victim));
    await gitHubSignIn(server);
    await server.mail.waitFor(victim);

    const owner = client(server);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await owner.signInWithOtp({ email: victim })).error).toBeNull();
    const ownMail = await server.mail.waitFor(victim, (mail) => server.mail.to(victim).indexOf(mail) === 1);
    const { data, error } = await owner.verifyOtp({ email: victim, token: ownMail.code!, type: "email" });
    expect(error).toBeNull();
    expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(["email"]);
    const again = await gitHubSignIn(server);
    if (again["access_token"]) expect(claimsOf(again["access_token"])["sub"]).not.toBe(data.user!.id);
  });
});

describe("H2 and M1: identities that merely claim an address, with manual linking on", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startLinkingServer();
  });
  afterAll(() => server.close());

  /** The attacker's own account, signed in, with a GitHub identity claiming `address` unverified linked to it. */
  async function attackerWithClaim(own: string, address: string) {
    const attacker = client(server, { flowType: "pkce" });
    expect((await attacker.signUp({ email: own, password: "attacker's password" })).error).toBeNull();
    github.signIn(attackerClaiming(address));
    const { data } = await attacker.linkIdentity({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    const code = (await browse(server, data.url!)).searchParams.get("code");
    expect((await attacker.exchangeCodeForSession(code!)).error).toBeNull();
    const { data: identities } = await attacker.getUserIdentities();
    expect(identities?.identities.map((identity) => identity.provider)).toEqual(["email", "github"]);
    return attacker;
  }

  it("H2: unlinking the email identity leaves no email, never the claimed one, and its owner signs up", async () => {
    const ceo = "ceo@bigcorp.example";
    const attacker = await attackerWithClaim("h2-mallory@evil.example", ceo);
    const email = (await attacker.getUserIdentities()).data!.identities.find((each) => each.provider === "email")!;
    expect((await attacker.unlinkIdentity(email)).error).toBeNull();
    await attacker.refreshSession();
    const { data } = await attacker.getUser();
    expect(data.user?.email ?? "").toBe("");
    expect(data.user?.email_confirmed_at ?? null).toBeNull();

    const withPassword = await client(server).signInWithPassword({ email: ceo, password: "attacker's password" });
    expect(withPassword.error?.code).toBe("invalid_credentials");
    const owner = await client(server).signUp({ email: ceo, password: "the ceo's password" });
    expect(owner.error).toBeNull();
    expect(owner.data.user?.id).not.toBe(data.user?.id);
  });

  it("M1: the owner's first verified sign-in makes the owner's own account, not the claimant's", async () => {
    const victim = "m1-victim@example.com";
    const attacker = await attackerWithClaim("m1-mallory@evil.example", victim);
    const attackerId = (await attacker.getUser()).data.user!.id;
    const token = await google.idToken({ sub: "google-m1-victim", email: victim });
    const { data, error } = await client(server).signInWithIdToken({ provider: "google", token });
    expect(error).toBeNull();
    expect(data.user?.id).not.toBe(attackerId);
    expect(data.user?.email).toBe(victim);
  });
});

describe("L2: an id_token presented twice", () => {
  it("signs in once: whoever replays an intercepted or logged token gets nothing", async () => {
    const server = await startTestServer(providers());
    try {
      const token = await google.idToken({ sub: "google-l2", email: "l2@gmail.example" });
      const first = await client(server).signInWithIdToken({ provider: "google", token });
      expect(first.error).toBeNull();
      const replay = await client(server).signInWithIdToken({ provider: "google", token });
      expect(replay.error).toMatchObject({ status: 400, message: "id_token already used" });
      expect(replay.data.session).toBeNull();
    } finally {
      await server.close();
    }
  });
});

describe("M2: linking a native sign-in's id_token while manual linking is off", () => {
  it("is refused as manual_linking_disabled, as /user/identities/authorize is", async () => {
    const server = await startTestServer({ ...providers(), AUTH_MAILER_AUTOCONFIRM: "true" });
    try {
      const app = client(server);
      expect((await app.signUp({ email: "m2@example.com", password: "correct horse m2" })).error).toBeNull();
      const token = await google.idToken({ sub: "google-m2", email: "m2@gmail.example" });
      const { error } = await app.linkIdentity({ provider: "google", token });
      expect(error).toMatchObject({ status: 404, code: "manual_linking_disabled" });
      expect((await app.getUserIdentities()).data?.identities.map((identity) => identity.provider)).toEqual(["email"]);
    } finally {
      await server.close();
    }
  });
});

describe("M3 and L1: a flow finished in another browser than the one that started it", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startLinkingServer();
  });
  afterAll(() => server.close());

  it("L1: the attacker's callback opened by the victim signs nobody in, and uses the flow up", async () => {
    github.signIn({
      id: 7301,
      login: "mallory-l1",
      emails: [{ email: "l1-mallory@evil.example", verified: true, primary: true }],
    });
    const { data } = await client(server).signInWithOAuth({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    // The attacker goes through the provider, stops before the callback and sends its URL to the victim.
    const attackerBrowser = new Browser(server);
    const toProvider = (await attackerBrowser.fetch(data.url!)).headers.get("location")!;
    const callback = (await attackerBrowser.fetch(toProvider)).headers.get("location")!;

    const victim = await new Browser(server).browse(callback);
    expect(fragmentOf(victim)["access_token"]).toBeUndefined();
    expect(Object.fromEntries(victim.searchParams)).toEqual({
      error: "invalid_request",
      error_code: "bad_oauth_state",
      error_description: "OAuth state was not started in this browser",
    });
    // The flow is used up by the refusal: the callback signs nobody in afterwards either.
    const after = await attackerBrowser.browse(callback);
    expect(after.searchParams.get("error_description")).toBe("OAuth state not found or expired");
    expect(fragmentOf(after)["access_token"]).toBeUndefined();
  });

  it("M3: the attacker's linking URL opened by the victim links nothing to the attacker", async () => {
    const attacker = client(server, { flowType: "pkce" });
    expect(
      (await attacker.signUp({ email: "m3-mallory@evil.example", password: "attacker's password" })).error,
    ).toBeNull();
    const { data } = await attacker.linkIdentity({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    // The victim, signed in at GitHub, follows the attacker's link; the code lands in the victim's browser, on the
    // app, whose own client holds no verifier for it.
    github.signIn({
      id: 7302,
      login: "victim-m3",
      emails: [{ email: "m3-victim@example.com", verified: true, primary: true }],
    });
    const landed = await new Browser(server).browse(data.url!);
    const code = landed.searchParams.get("code");
    expect(code).toBeTruthy();
    const victimApp = client(server, { flowType: "pkce" });
    expect((await victimApp.exchangeCodeForSession(code!)).error).not.toBeNull();
    expect((await attacker.getUserIdentities()).data?.identities.map((identity) => identity.provider)).toEqual([
      "email",
    ]);
    // The victim's GitHub account is still the victim's to sign in with, into an account of its own.
    const victim = await gitHubSignIn(server);
    expect(claimsOf(victim["access_token"]!)["email"]).toBe("m3-victim@example.com");
  });

  it("M3: a link through a provider without PKCE is refused before the browser leaves", async () => {
    const app = client(server);
    expect((await app.signUp({ email: "m3-implicit@example.com", password: "correct horse m3" })).error).toBeNull();
    const { data, error } = await app.linkIdentity({
      provider: "github",
      options: { redirectTo: SITE, skipBrowserRedirect: true },
    });
    expect(error).toMatchObject({ status: 400, code: "validation_failed" });
    expect(data.url ?? null).toBeNull();
  });
});
