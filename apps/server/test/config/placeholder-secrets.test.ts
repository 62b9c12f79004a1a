import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { placeholderReason } from "../../src/config/placeholder-secrets.ts";
import { load, PRODUCTION_ENV, problemsOf } from "./support.ts";

const repo = join(import.meta.dirname, "..", "..", "..", "..");

/** Every literal value given to a JWT_SECRET or DB_SECRET in our examples and docs (not `$(openssl …)`). */
function documentedSecrets(): string[] {
  // The docs' files, not their folders (docs/images).
  const docs = readdirSync(join(repo, "docs"), { withFileTypes: true }).filter((entry) => entry.isFile());
  const files = [".env.example", "README.md", ...docs.map((entry) => join("docs", entry.name))];
  return files.flatMap((file) =>
    [...readFileSync(join(repo, file), "utf8").matchAll(/(?:JWT|DB)_SECRET[=:]\s*"?([^\s"`$][^\s"`]*)/g)].map(
      (match) => match[1]!,
    ),
  );
}

describe("placeholder secrets", () => {
  it("refuses in production every secret written in our examples and docs", () => {
    const secrets = documentedSecrets();
    expect(secrets).toContain("change-me-to-at-least-32-random-characters");
    for (const secret of secrets) {
      if (secret.length < 32) continue; // refused for its length
      expect(placeholderReason(secret), secret).toBeDefined();
    }
  });

  it("refuses the example secrets of Supabase's docker setup and CLI, saying how to make one", () => {
    for (const secret of [
      "your-super-secret-jwt-token-with-at-least-32-characters-long",
      "super-secret-jwt-token-with-at-least-32-characters-long",
    ]) {
      const problems = problemsOf({ ...PRODUCTION_ENV, GOTRUE_JWT_SECRET: secret, AUTH_JWT_SECRET: undefined });
      expect(problems).toEqual([
        expect.stringMatching(
          /^GOTRUE_JWT_SECRET: is the .* which anyone can read; generate one with `openssl rand -hex 32`$/,
        ),
      ]);
      expect(problems.join("\n")).not.toContain(secret);
    }
  });

  it("refuses placeholders and values with too few different characters, JWT_SECRET and DB_SECRET alike", () => {
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_SECRET: "CHANGE_ME_CHANGE_ME_CHANGE_ME_CHANGE_ME" })).toEqual([
      "AUTH_JWT_SECRET: is a placeholder, not a secret; generate one with `openssl rand -hex 32`",
    ]);
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_DB_SECRET: "<your-db-secret-of-32-characters-or-more>" })).toEqual([
      "AUTH_DB_SECRET: is a placeholder, not a secret; generate one with `openssl rand -hex 32`",
    ]);
    expect(problemsOf({ ...PRODUCTION_ENV, AUTH_JWT_SECRET: "1234512345123451234512345123451234" })).toEqual([
      "AUTH_JWT_SECRET: is not random: it has too few different characters; generate one with `openssl rand -hex 32`",
    ]);
  });

  it("accepts generated secrets, and anything in the development profile", () => {
    expect(placeholderReason("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")).toBeUndefined();
    expect(placeholderReason("q3VpZ0xR8mLk2sT7wYb1nC4eJ6hA9dF0")).toBeUndefined();
    expect(load({ AUTH_JWT_SECRET: "change-me-to-at-least-32-random-characters" }).profile).toBe("development");
  });
});
