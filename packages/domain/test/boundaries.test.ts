import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every module specifier: `import … from`, `export … from`, side-effect `import "x"`, `import()` and `require()`. */
const importsOf = (file: string) =>
  [
    ...readFileSync(file, "utf8").matchAll(
      /(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|\bimport\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g,
    ),
  ].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4] ?? "");

describe("the import scanner", () => {
  it("sees every form of import", () => {
    const sample = join(src, "..", "test", "fixtures", "imports.txt");
    expect(importsOf(sample)).toEqual(["./a.ts", "node:fs", "./b.ts", "pg", "node:net", "./c.ts"]);
  });
});

describe("the domain package", () => {
  const production = sourceFiles(src).filter((file) => !relative(src, file).startsWith("testing"));

  it("is scanned at all", () => {
    expect(production.length).toBeGreaterThan(10);
  });

  it("imports nothing but its own modules: no I/O, no framework, no platform module", () => {
    const foreign = production.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !specifier.startsWith("."))
        .map((specifier) => `${relative(src, file)} imports ${specifier}`),
    );
    expect(foreign).toEqual([]);
  });

  it("lets its test doubles use only what cannot touch the network, the disk or a framework", () => {
    const testing = sourceFiles(join(src, "testing"));
    const allowed = new Set(["node:crypto", "vitest"]);
    const foreign = testing.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !specifier.startsWith(".") && !allowed.has(specifier))
        .map((specifier) => `${relative(src, file)} imports ${specifier}`),
    );
    expect(foreign).toEqual([]);
  });

  it("never reads the wall clock, the environment or ambient randomness outside its ports", () => {
    const ambient = production.filter((file) =>
      /\bDate\.now\(|new Date\(\)|process\.|Math\.random\(|crypto\.(randomUUID|getRandomValues)\(|console\./.test(readFileSync(file, "utf8")),
    );
    expect(ambient.map((file) => relative(src, file))).toEqual([]);
  });
});
