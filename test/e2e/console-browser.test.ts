import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConsole } from "@latchkey/console/build";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SoftwareAuthenticator } from "../support/software-authenticator.ts";
import { launchChromium, missingChromium } from "./chromium.ts";
import { adminApi, claimsOf, serviceRoleKey } from "./support.ts";

// The admin console (/console) as an admin uses it, in headless Chromium: signed in with the service-role key, each
// action checked through the admin API, and every main page checked by axe-core for accessibility. The console is
// built here, so a fresh clone needs no `pnpm build` first. Screenshots go to test/e2e/artifacts/, and to
// CONSOLE_SCREENSHOTS_DIR too when set (docs/images, for the README). Without Chromium (chromium.ts), skipped.

const ARTIFACTS = join(import.meta.dirname, "artifacts");

/** Runs axe-core on the page as it is: the violations, each with the elements it found. */
async function accessibilityViolations(page: Page): Promise<unknown[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern.
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(axe.source);
  return (await page.evaluate(
    `axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) })))`,
  )) as unknown[];
}

/** The page as a laptop's screen shows it; `fullPage` for one whose parts are all worth showing. */
async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  const image = await page.screenshot({ fullPage });
  for (const dir of [ARTIFACTS, process.env["CONSOLE_SCREENSHOTS_DIR"]]) {
    if (!dir) continue;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `console-${name}.png`), image);
  }
}

/** The relying party of the app whose users' passkeys the console lists. */
const RP_ID = "localhost";
const RP_ORIGIN = "http://localhost:5173";

const PEOPLE = [
  { email: "ada.lovelace@example.com", user_metadata: { full_name: "Ada Lovelace", team: "engines" } },
  { email: "grace.hopper@example.com", user_metadata: { full_name: "Grace Hopper" } },
  { email: "alan.turing@example.com", phone: "15550100007", user_metadata: { full_name: "Alan Turing" } },
  { email: "edsger.dijkstra@example.com", user_metadata: { full_name: "Edsger Dijkstra" } },
  { email: "leaving@example.com", user_metadata: {} },
];

describeIfAvailable(missingChromium, "the admin console in Chromium", () => {
  let consoleDir: string;
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let admin: GoTrueAdminApi;
  let page: Page;
  const pageErrors: string[] = [];
  const writes: string[] = [];
  const ids = new Map<string, string>();

  beforeAll(async () => {
    consoleDir = mkdtempSync(join(tmpdir(), "latchkey-console-"));
    await buildConsole(consoleDir);
    await Promise.all([
      startTestServer(
        {
          AUTH_CONSOLE_ENABLED: "true",
          // Passkeys on, for a user's to be listed and removed.
          AUTH_PASSKEY_ENABLED: "true",
          AUTH_WEBAUTHN_RP_ID: RP_ID,
          AUTH_WEBAUTHN_RP_DISPLAY_NAME: "Latchkey console tests",
          AUTH_WEBAUTHN_RP_ORIGINS: RP_ORIGIN,
        },
        {},
        { consoleDir },
      ).then((started) => {
        server = started;
      }),
      launchChromium().then((launched) => {
        browser = launched;
      }),
    ]);
    admin = await adminApi(server!);
    for (const person of PEOPLE) {
      const { data, error } = await admin.createUser({ ...person, email_confirm: true, password: "a-good-password-1" });
      if (error) throw error;
      ids.set(person.email, data.user.id);
    }
    page = await browser!.newPage({ viewport: { width: 1366, height: 900 } });
    // Well within a test's time, so that a step that never happens fails as itself.
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") pageErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on("request", (request) => {
      if (request.method() !== "GET") writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  const heading = (name: string) => page.getByRole("heading", { level: 1, name }).waitFor();
  const status = (text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();
  const userOf = async (email: string) => (await admin.getUserById(ids.get(email)!)).data.user!;
  /** A session of the user's own, signed in with the password every user here has. */
  const accessTokenOf = async (email: string) => {
    const signIn = await server!.fetch("/token?grant_type=password", {
      method: "POST",
      json: { email, password: "a-good-password-1" },
    });
    expect(signIn.status).toBe(200);
    return ((await signIn.json()) as { access_token: string }).access_token;
  };

  it("serves the page under its CSP, and its assets cached for good", async () => {
    const response = await fetch(`${server!.url}/console`);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const script = (await response.text()).match(/src="(\/console\/assets\/console-[^"]+\.js)"/)?.[1];
    const asset = await fetch(`${server!.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it("signs in with the service-role key, kept in session storage, and lists the users", async () => {
    await page.goto(`${server!.url}/console`);
    await heading("Latchkey console");
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel("Service-role key", { exact: true }).fill(await serviceRoleKey());
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await heading("Users");
    await page.getByRole("link", { name: "ada.lovelace@example.com" }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('latchkey-console-token') !== null")).toBe(true);
    expect(await page.context().cookies()).toEqual([]);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, "users");
  });

  it("finds a user by search and opens the user's page", async () => {
    await page.getByLabel("Search by email, phone or name").fill("ada.love");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText("Page 1 of 1 (1 users)").waitFor();
    expect(await page.getByRole("row").count()).toBe(2);
    await page.getByRole("link", { name: "ada.lovelace@example.com" }).click();
    await page.getByRole("heading", { level: 2, name: "ada.lovelace@example.com" }).waitFor();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("bans for a duration, then unbans", async () => {
    await page.getByLabel("Ban for").selectOption("24h");
    await page.getByRole("button", { name: "Ban user", exact: true }).click();
    await status("User banned.");
    const banned = await userOf("ada.lovelace@example.com");
    expect(Date.parse(banned.banned_until!)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    await page.getByRole("button", { name: "Unban user" }).click();
    await status("User unbanned.");
    expect((await userOf("ada.lovelace@example.com")).banned_until ?? null).toBeNull();
  });

  it("sends a recovery link, which arrives by mail", async () => {
    await page.getByRole("button", { name: "Send recovery link" }).click();
    await status("Recovery link sent.");
    const mail = await server!.mail.waitFor("ada.lovelace@example.com");
    expect(mail.link).toContain("type=recovery");
  });

  it("refuses invalid metadata next to the field, sending nothing, then saves the fixed JSON", async () => {
    const field = page.getByLabel("User metadata (JSON)");
    const before = (await userOf("ada.lovelace@example.com")).user_metadata;
    const sent = writes.length;
    await field.fill('{"full_name": "Ada", ');
    await page.getByRole("button", { name: "Save metadata" }).click();
    await page
      .locator("#user-metadata-error")
      .getByText(/Not valid JSON/)
      .waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect(await field.getAttribute("aria-describedby")).toBe("user-metadata-error");
    expect(writes.slice(sent)).toEqual([]);
    expect((await userOf("ada.lovelace@example.com")).user_metadata).toEqual(before);

    await field.fill('{"full_name": "Ada King", "plan": "pro"}');
    await page.getByRole("button", { name: "Save metadata" }).click();
    await status("Metadata saved.");
    expect(await field.getAttribute("aria-invalid")).toBeNull();
    // The keys taken out of the text (team, email_verified) are gone: what is saved is what the admin saw.
    expect((await userOf("ada.lovelace@example.com")).user_metadata).toEqual({ full_name: "Ada King", plan: "pro" });
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, "user", true);
  });

  it("deletes a user only once the confirmation is typed", async () => {
    await page.goto(`${server!.url}/console#/users/${ids.get("leaving@example.com")}`);
    await page.getByRole("heading", { level: 2, name: "leaving@example.com" }).waitFor();
    await page.getByLabel("Soft delete").uncheck();
    await page.getByRole("button", { name: "Delete user…" }).click();
    const dialog = page.getByRole("dialog");
    const confirm = dialog.getByRole("button", { name: "Delete user", exact: true });
    expect(await confirm.isDisabled()).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByLabel("Type the email address to confirm").fill("leaving@example.com");
    await confirm.click();
    await heading("Users");
    const { error } = await admin.getUserById(ids.get("leaving@example.com")!);
    expect(error?.status).toBe(404);
  });

  it("generates a link to copy, and signs the user out everywhere", async () => {
    const email = "grace.hopper@example.com";
    // A session of the user's own, for the console to list and end.
    await accessTokenOf(email);
    await page.goto(`${server!.url}/console#/users/${ids.get(email)}`);
    await page.getByRole("heading", { level: 2, name: email }).waitFor();
    await page.getByLabel("Kind of link").selectOption("recovery");
    await page.getByRole("button", { name: "Generate link" }).click();
    expect(await page.getByLabel("Generated link").inputValue()).toContain("type=recovery");

    const sessions = page.getByRole("region", { name: "Sessions" });
    await sessions.getByRole("row").nth(1).waitFor();
    expect(await sessions.getByRole("row").count()).toBe(2);
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await status("Signed out everywhere");
    await sessions.getByText("No active sessions.").waitFor();
    const { sessions: left } = (await (
      await server!.fetch(`/admin/users/${ids.get(email)}/sessions`, {
        headers: { Authorization: `Bearer ${await serviceRoleKey()}` },
      })
    ).json()) as { sessions: unknown[] };
    expect(left).toEqual([]);
  });

  it("removes a user's second factor", async () => {
    const email = "alan.turing@example.com";
    const enrolled = await server!.fetch("/factors", {
      method: "POST",
      headers: { Authorization: `Bearer ${await accessTokenOf(email)}` },
      json: { factor_type: "totp", friendly_name: "Alan's phone" },
    });
    expect(enrolled.status).toBe(200);
    await page.goto(`${server!.url}/console#/users/${ids.get(email)}`);
    await page.getByRole("button", { name: "Remove factor Alan's phone" }).click();
    await status("Factor Alan's phone removed.");
    const { data } = await admin.mfa.listFactors({ userId: ids.get(email)! });
    expect(data?.factors).toEqual([]);
  });

  it("removes a user's passkey", async () => {
    const email = "edsger.dijkstra@example.com";
    const asUser = { Authorization: `Bearer ${await accessTokenOf(email)}` };
    const begun = await server!.fetch("/passkeys/registration/options", { method: "POST", headers: asUser });
    const { challenge_id, options } = (await begun.json()) as { challenge_id: string; options: never };
    const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: RP_ORIGIN });
    const registered = await server!.fetch("/passkeys/registration/verify", {
      method: "POST",
      headers: asUser,
      json: { challenge_id, credential: authenticator.create(options) },
    });
    expect(registered.status).toBe(200);
    const passkey = (await registered.json()) as { id: string; friendly_name?: string };
    const name = passkey.friendly_name ?? passkey.id;

    await page.goto(`${server!.url}/console#/users/${ids.get(email)}`);
    const remove = page.getByRole("button", { name: `Remove passkey ${name}` });
    await remove.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await remove.click();
    await status(`Passkey ${name} removed.`);
    const listed = await server!.fetch(`/admin/users/${ids.get(email)}/passkeys`, {
      headers: { Authorization: `Bearer ${await serviceRoleKey()}` },
    });
    expect(await listed.json()).toEqual([]);
  });

  it("creates a user, and invites another by mail", async () => {
    await page.getByRole("link", { name: "Users", exact: true }).click();
    await page.getByRole("link", { name: "Create or invite a user" }).click();
    await heading("Create or invite a user");
    expect(await accessibilityViolations(page)).toEqual([]);
    const create = page.getByRole("form", { name: "Create a user" });
    await create.getByLabel("Email").fill("new.person@example.com");
    await create.getByRole("button", { name: "Create user" }).click();
    await page.getByRole("heading", { level: 2, name: "new.person@example.com" }).waitFor();
    expect((await admin.listUsers()).data.users.map((user) => user.email)).toContain("new.person@example.com");

    await page.goBack();
    const invite = page.getByRole("form", { name: "Invite a user" });
    await invite.getByLabel("Email").fill("invited@example.com");
    await invite.getByRole("button", { name: "Send invitation" }).click();
    await status("Invitation sent to invited@example.com.");
    expect((await server!.mail.waitFor("invited@example.com")).link).toContain("type=invite");
  });

  it("shows the audit log, filtered", async () => {
    await page.getByRole("link", { name: "Audit log" }).click();
    await heading("Audit log");
    await page.getByRole("cell", { name: "user_deleted" }).waitFor();
    await screenshot(page, "audit");
    await page.getByLabel("Filter on").selectOption("action");
    await page.getByLabel("containing").fill("signedup");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("cell", { name: "user_deleted" }).waitFor({ state: "detached" });
    // The people, and the one created in the console.
    expect(await page.getByRole("cell", { name: "user_signedup" }).count()).toBe(PEOPLE.length + 1);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("shows the settings, the signing keys and the providers, and the health panel", async () => {
    await page.getByRole("link", { name: "Settings" }).click();
    await heading("Settings");
    await page.getByRole("heading", { name: "Effective settings" }).waitFor();
    await page.getByRole("listitem").filter({ hasText: "email" }).first().waitFor();
    await page.getByText(/Profile: |Not available on this server/).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, "settings");

    await page.getByRole("link", { name: "Health" }).click();
    await heading("Health");
    await page.getByText("This instance is ready").waitFor();
    await page.getByRole("term").filter({ hasText: "Users" }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it("goes back to sign-in when the API refuses the token", async () => {
    await page.evaluate("sessionStorage.setItem('latchkey-console-token', 'not-a-token')");
    await page.getByRole("link", { name: "Users", exact: true }).click();
    await heading("Latchkey console");
    await page.getByText("sign in again").waitFor();
    expect(await page.evaluate("sessionStorage.getItem('latchkey-console-token')")).toBeNull();
  });

  it("signs in with the password of an account the admin API accepts, and of no other", async () => {
    const signInAs = async (email: string) => {
      await page.getByLabel("Email", { exact: true }).fill(email);
      await page.getByLabel("Password", { exact: true }).fill("a-good-password-1");
      await page.getByRole("button", { name: "Sign in with the account" }).click();
    };
    await signInAs("grace.hopper@example.com");
    await page.getByText("This token has no admin access").waitFor();
    expect(await page.evaluate("sessionStorage.getItem('latchkey-console-token')")).toBeNull();

    // A role of JWT_ADMIN_ROLES is what the admin API honours in a user's token, and so what the console accepts.
    const { error } = await admin.updateUserById(ids.get("grace.hopper@example.com")!, { role: "supabase_admin" });
    expect(error).toBeNull();
    await signInAs("grace.hopper@example.com");
    await heading("Users");
    const token = String(await page.evaluate("sessionStorage.getItem('latchkey-console-token')"));
    expect(claimsOf(token)).toMatchObject({ role: "supabase_admin", email: "grace.hopper@example.com" });
    expect(await page.context().cookies()).toEqual([]);

    // An access token the API no longer takes (as once JWT_EXP has passed) is renewed with the account's refresh
    // token, and the page goes on.
    await page.evaluate("sessionStorage.setItem('latchkey-console-token', 'expired')");
    await page.getByRole("link", { name: "Audit log" }).click();
    await heading("Audit log");
    await page.getByRole("row").nth(1).waitFor();
    const renewed = String(await page.evaluate("sessionStorage.getItem('latchkey-console-token')"));
    expect(claimsOf(renewed)).toMatchObject({ role: "supabase_admin", session_id: claimsOf(token)["session_id"] });
  });
});
