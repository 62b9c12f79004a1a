import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalName, settingsOf } from "../../src/config/setting.ts";
import { SETTINGS } from "../../src/config/settings.ts";
import { run, tempDir } from "../support/binary.ts";

// What a newcomer types first: the help of the binary and of each command, and what a mistyped call gets.

/** `latchkey <args>` with no configuration at all, in an empty folder: its exit code and output. */
async function latchkey(...args: string[]) {
  const cwd = tempDir();
  const result = run(args, { PATH: process.env["PATH"] ?? "" }, cwd);
  const code = await result.exited;
  return { code, ...result.output(), cwd };
}

/** The names every setting of these groups is shown under. */
const namesOf = (...groups: (keyof typeof SETTINGS)[]) =>
  groups.flatMap((group) => settingsOf({ [group]: SETTINGS[group] }).map(canonicalName));

describe("latchkey's help", () => {
  it("describes every command on stdout for --help, -h and help, with exit code 0", async () => {
    const [long, short, word] = await Promise.all([latchkey("--help"), latchkey("-h"), latchkey("help")]);
    for (const shown of [long, short, word]) {
      expect(shown.code).toBe(0);
      expect(shown.stderr).toBe("");
      expect(shown.stdout).toBe(long.stdout);
    }
    for (const command of ["serve", "migrate", "keys", "import gotrue", "config", "help"]) {
      expect(long.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    }
    expect(long.stdout).toContain("prints the effective settings and where each came from, secrets redacted");
    expect(long.stdout).toContain("docs/settings.md");
  });

  it("describes each command, its options and the settings it reads, touching nothing", async () => {
    const [keys, importing, migrate, serve, config, helpKeys] = await Promise.all([
      latchkey("keys", "--help"),
      latchkey("import", "gotrue", "--help"),
      latchkey("migrate", "--help"),
      latchkey("serve", "--help"),
      latchkey("config", "-h"),
      latchkey("help", "keys"),
    ]);
    for (const shown of [keys, importing, migrate, serve, config, helpKeys]) {
      expect(shown.code).toBe(0);
      expect(shown.stderr).toBe("");
      // Not even the development profile's generated secret and keys.
      expect(existsSync(join(shown.cwd, ".latchkey"))).toBe(false);
    }
    expect(helpKeys.stdout).toBe(keys.stdout);

    for (const option of ["--from", "--from-env", "--schema", "--batch-size", "--dry-run", "--after", "--audit"]) {
      expect(importing.stdout).toMatch(new RegExp(`^  ${option} `, "m"));
    }
    for (const name of namesOf("db", "log", "jwt", "security")) expect(importing.stdout).toContain(name);
    expect(importing.stdout).toMatch(/JWT_SECRET[\s\S]*the Supabase project's/);
    expect(importing.stdout).toMatch(/SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS[\s\S]*the Supabase project/);

    for (const word of ["generate", "add", "use", "remove", "--alg", "--to", "--in"]) {
      expect(keys.stdout).toContain(`${word} `);
    }
    for (const name of namesOf("api", "jwt")) expect(keys.stdout).toContain(name);

    for (const name of namesOf("db", "log")) expect(migrate.stdout).toContain(name);
    expect(migrate.stdout).not.toContain("JWT_SECRET");

    for (const name of ["AUTH_SITE_URL", "AUTH_API_EXTERNAL_URL", "AUTH_JWT_SECRET", "AUTH_SMTP_HOST", "PORT"]) {
      expect(serve.stdout).toContain(name);
    }
    expect(serve.stdout).toContain("docs/settings.md");
    expect(config.stdout).toContain("secrets redacted");
  });
});

describe("a mistyped call", () => {
  it("is one line on stderr naming what is unknown, with exit code 2", async () => {
    const cases: [string[], string][] = [
      [["--bogus"], "latchkey: unknown option --bogus; see latchkey --help"],
      [["serve-forever"], "latchkey: unknown command serve-forever; see latchkey --help"],
      [["help", "bogus"], "latchkey: unknown command bogus; see latchkey --help"],
      [["migrate", "--bogus"], "latchkey: unknown option --bogus for migrate; see latchkey migrate --help"],
      [["migrate", "now"], "latchkey: unexpected argument now for migrate; see latchkey migrate --help"],
      [["serve", "-x"], "latchkey: unknown option -x for serve; see latchkey serve --help"],
      [["config", "--all"], "latchkey: unknown option --all for config; see latchkey config --help"],
      [["keys", "--bogus"], "latchkey: unknown option --bogus for keys; see latchkey keys --help"],
      [["keys", "generate", "--alg"], "latchkey: --alg needs a value; see latchkey keys --help"],
      [
        ["import", "gotrue", "--from", "postgres://h/d", "--bogus=1"],
        "latchkey: unknown option --bogus for import; see latchkey import gotrue --help",
      ],
      [["import", "gotrue", "--dry-run=yes"], "latchkey: --dry-run takes no value; see latchkey import gotrue --help"],
    ];
    const results = await Promise.all(cases.map(([args]) => latchkey(...args)));
    results.forEach((result, index) => {
      expect(result.code, cases[index]![0].join(" ")).toBe(2);
      expect(result.stderr).toBe(`${cases[index]![1]}\n`);
      expect(result.stdout).toBe("");
    });
  });
});
