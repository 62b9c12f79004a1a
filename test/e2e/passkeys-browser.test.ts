import { readFile, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import type { Browser, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium, missingChromium } from "./chromium.ts";
import { claimsOf } from "./support.ts";

// Passkeys as a browser app meets them: the official client (auth-js) in a page of headless Chromium runs the real
// WebAuthn ceremonies (navigator.credentials.create, then .get with the discoverable credential) against Chrome's
// virtual authenticator, set up through the DevTools protocol. The page is served from http://localhost (a secure
// context, as WebAuthn needs), the server answers on 127.0.0.1: every call is cross-origin, as from an app.
// Without Chromium (chromium.ts), the block is one skipped test saying so.

const password = "correct-horse-battery";

/** The steps test/e2e/browser/passkeys.js puts on the page. */
interface PageSteps {
  signUpAndRegister(serverUrl: string, email: string, password: string): Promise<{ userId: string; passkeyId: string }>;
  signOutAndSignInWithPasskey(): Promise<{
    userId: string;
    sessionUserId: string;
    accessToken: string;
    passkeys: { id: string; created_at: string; last_used_at?: string }[];
  }>;
}

/**
 * Where the page's files come from: its own (test/e2e/browser), and the auth-js that supabase-js 2.119.1 carries
 * (the newest here, with passkeys on by default) as its ESM build, with tslib, its one dependency, as the import
 * map in index.html names them. Resolved as Node resolves them, so pnpm's layout is no concern.
 */
function pageFiles(): [string, string][] {
  const fromSupabaseJs = createRequire(createRequire(import.meta.url).resolve("@supabase/supabase-js"));
  const authJsRoot = dirname(fromSupabaseJs.resolve("@supabase/auth-js/package.json"));
  const tslibRoot = dirname(createRequire(join(authJsRoot, "package.json")).resolve("tslib/package.json"));
  const browserDir = join(dirname(fileURLToPath(import.meta.url)), "browser");
  // URL path prefix, then the file or directory it maps to.
  return [
    ["/vendor/auth-js/", join(authJsRoot, "dist", "module")],
    ["/vendor/tslib.js", join(tslibRoot, "tslib.es6.mjs")],
    ["/", browserDir],
  ];
}

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
};

/** A static server for the page on a free port of 127.0.0.1, which the page reaches as http://localhost:<port>. */
async function startPageServer(routes: [string, string][]): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    const route = routes.find(([prefix]) => path === prefix || (prefix.endsWith("/") && path.startsWith(prefix)));
    let file: string | undefined;
    if (route) {
      const [prefix, target] = route;
      const rest = path === "/" ? "index.html" : path.slice(prefix.length);
      const candidate = rest === "" ? target : normalize(join(target, rest));
      // Nothing outside the mapped directory, whatever `..` the path holds.
      if (candidate === target || candidate.startsWith(target + sep)) file = candidate;
      // auth-js's ESM build imports its own modules without the extension (`./lib/webauthn.errors`), as a bundler
      // resolves them; none of them is a directory, so `.js` is all a browser is missing.
      if (file && !isFile(file) && isFile(`${file}.js`)) file = `${file}.js`;
    }
    if (!file) return void res.writeHead(404).end();
    const type = TYPES[extname(file)] ?? "application/octet-stream";
    readFile(file, (error, body) => {
      if (error) return void res.writeHead(404).end();
      res.writeHead(200, { "Content-Type": type }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

describeIfAvailable(missingChromium, "passkeys in Chromium: the official client and a virtual authenticator", () => {
  let pageServer: Server | undefined;
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const served = await startPageServer(pageFiles());
    pageServer = served.server;
    // Side by side; each kept as soon as it is up, so that afterAll closes it even when the other failed.
    await Promise.all([
      startTestServer({
        AUTH_MAILER_AUTOCONFIRM: "true",
        AUTH_PASSKEY_ENABLED: "true",
        AUTH_WEBAUTHN_RP_ID: "localhost",
        AUTH_WEBAUTHN_RP_DISPLAY_NAME: "Latchkey browser test",
        // The only origin the server accepts in the authenticator's clientDataJSON: the page's.
        AUTH_WEBAUTHN_RP_ORIGINS: served.origin,
      }).then((started) => {
        server = started;
      }),
      launchChromium().then((launched) => {
        browser = launched;
      }),
    ]);
    page = await browser!.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") pageErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on("requestfailed", (request) => pageErrors.push(`${request.url()}: ${request.failure()?.errorText}`));
    cdp = await page.context().newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    ({ authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
    await page.goto(`${served.origin}/`);
    await page
      .waitForFunction(() => "latchkeyPage" in globalThis, undefined, { timeout: 10_000 })
      .catch((error: Error) => {
        throw new Error(`the page's module did not load: ${pageErrors.join("; ") || error.message}`);
      });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
  });

  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;

  it("registers a passkey after sign-up, then signs the same user in with it after sign-out", async () => {
    const email = `passkey-browser-${Date.now()}@example.com`;

    const registered = await page.evaluate(
      ([url, email, password]) =>
        (globalThis as unknown as { latchkeyPage: PageSteps }).latchkeyPage.signUpAndRegister(url, email, password),
      [server!.url, email, password] as const,
    );
    const [created, ...more] = await credentials();
    expect(more).toEqual([]);
    expect(created).toMatchObject({ isResidentCredential: true, rpId: "localhost" });

    const signedIn = await page.evaluate(() =>
      (globalThis as unknown as { latchkeyPage: PageSteps }).latchkeyPage.signOutAndSignInWithPasskey(),
    );
    expect(signedIn.userId).toBe(registered.userId);
    expect(signedIn.sessionUserId).toBe(registered.userId);
    const claims = claimsOf(signedIn.accessToken);
    expect(claims["sub"]).toBe(registered.userId);
    expect(claims["amr"]).toEqual([expect.objectContaining({ method: "passkey" })]);

    // The same credential signed the assertion, and the authenticator counted it.
    const [used, ...others] = await credentials();
    expect(others).toEqual([]);
    expect(used!.credentialId).toBe(created!.credentialId);
    expect(used!.signCount).toBeGreaterThan(created!.signCount);

    expect(signedIn.passkeys).toEqual([
      expect.objectContaining({ id: registered.passkeyId, last_used_at: expect.any(String) }),
    ]);
    expect(Number.isNaN(Date.parse(signedIn.passkeys[0]!.last_used_at!))).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});
