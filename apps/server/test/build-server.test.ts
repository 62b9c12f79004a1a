import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { asciiOnly, testSupportIn } from "../build-server.ts";

// `pnpm build` refuses a bundle that carries test support; here, that it tells it apart (the build itself runs in
// the global setup of every run that starts the binary).

const repo = join(import.meta.dirname, "..", "..", "..");
/** A path inside the repository as esbuild's metafile names it: from the working directory. */
const input = (path: string) => relative(process.cwd(), join(repo, path));

describe("the production bundle's check", () => {
  it("finds our test support among a bundle's inputs", () => {
    expect(
      testSupportIn([
        input("apps/server/test/support/index.ts"),
        input("apps/server/test/support/start-test-server.ts"),
        input("packages/domain/src/testing/index.ts"),
        input("test/e2e/support.ts"),
      ]),
    ).toEqual([
      "apps/server/test/support/index.ts",
      "apps/server/test/support/start-test-server.ts",
      "packages/domain/src/testing/index.ts",
      "test/e2e/support.ts",
    ]);
  });

  it("lets the server's modules and its dependencies' own files through", () => {
    expect(
      testSupportIn([
        input("apps/server/src/main.ts"),
        input("packages/domain/src/in-memory/rate-limiter.ts"),
        input("packages/http-hono/src/errors/error-response.ts"),
        input("node_modules/.pnpm/some-lib@1.0.0/node_modules/some-lib/test/helper.js"),
      ]),
    ).toEqual([]);
  });
});

describe("the bundle's modules", () => {
  it("are ASCII: what esbuild leaves outside it (in comments) is escaped", () => {
    const source = '// 20 µs – about… “so”\nconst a = "é"; // 😀\n';
    const escaped = asciiOnly(source);
    expect(escaped).toMatch(/^[\x20-\x7e\n]*$/);
    expect(escaped).toBe(
      '// 20 \\u00b5s \\u2013 about\\u2026 \\u201cso\\u201d\nconst a = "\\u00e9"; // \\ud83d\\ude00\n',
    );
  });

  it("mean what they meant: an escaped string is the same string", () => {
    const value = "en–dash, µ, 😀";
    // biome-ignore lint/security/noGlobalEval: the escaped literal, evaluated as JavaScript reads it
    expect(eval(asciiOnly(JSON.stringify(value)))).toBe(value);
  });
});
