import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// The hexagon's rules, checked on the source: the domain imports nothing foreign; the HTTP layer knows the domain
// and its framework, never an adapter; an adapter knows the domain and its own library, never another adapter.
// docs/architecture.md says why each piece lives where it does.

const root = join(import.meta.dirname, "..", "..");
const packages = join(root, "packages");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
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

/** `file imports specifier` for each import of the files that `allowed` refuses. */
function violations(files: string[], allowed: (specifier: string, file: string) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((specifier) => !allowed(specifier, file))
      .map((specifier) => `${relative(root, file)} imports ${specifier}`),
  );
}

/** A relative import that stays inside `dir`. */
const staysIn = (dir: string) => (specifier: string, file: string) =>
  specifier.startsWith(".") && !relative(dir, join(file, "..", specifier)).startsWith("..");

/** A bare specifier naming `name` or one of its subpaths. */
const names = (specifier: string, name: string) => specifier === name || specifier.startsWith(`${name}/`);

describe("the import scanner", () => {
  it("sees every form of import", () => {
    const sample = join(import.meta.dirname, "fixtures", "imports.txt");
    expect(importsOf(sample)).toEqual(["./a.ts", "node:fs", "./b.ts", "pg", "node:net", "./c.ts"]);
  });
});

describe("the domain package", () => {
  const src = join(packages, "domain", "src");
  const production = sourceFiles(src).filter((file) => !relative(src, file).startsWith("testing"));

  it("is scanned at all", () => {
    expect(production.length).toBeGreaterThan(10);
  });

  it("imports nothing but its own modules: no I/O, no framework, no platform module", () => {
    expect(violations(production, staysIn(src))).toEqual([]);
  });

  it("lets its test doubles use only what cannot touch the network, the disk or a framework", () => {
    const allowed = new Set(["node:crypto", "vitest"]);
    expect(
      violations(
        sourceFiles(join(src, "testing")),
        (specifier, file) => staysIn(src)(specifier, file) || allowed.has(specifier),
      ),
    ).toEqual([]);
  });

  it("never reads the wall clock, the environment or ambient randomness outside its ports", () => {
    const ambient = production.filter((file) =>
      /\bDate\.now\(|new Date\(\)|process\.|Math\.random\(|crypto\.(randomUUID|getRandomValues)\(|console\./.test(
        readFileSync(file, "utf8"),
      ),
    );
    expect(ambient.map((file) => relative(src, file))).toEqual([]);
  });
});

describe("the HTTP layer", () => {
  const src = join(packages, "http-hono", "src");

  it("knows the domain, its framework, its validator and the tracing API, and no adapter", () => {
    const allowed = (specifier: string, file: string) =>
      staysIn(src)(specifier, file) ||
      ["@latchkey/domain", "hono", "valibot", "@opentelemetry/api"].some((name) => names(specifier, name));
    expect(sourceFiles(src).length).toBeGreaterThan(10);
    expect(violations(sourceFiles(src), allowed)).toEqual([]);
  });
});

describe("the adapters", () => {
  const adapters = readdirSync(packages).filter((name) => name.startsWith("adapters-"));

  it("are scanned at all", () => {
    expect(adapters.length).toBeGreaterThanOrEqual(5);
  });

  it.each(adapters)("%s imports the domain and libraries, never another package of ours", (adapter) => {
    const dir = join(packages, adapter);
    const allowed = (specifier: string, file: string) =>
      specifier.startsWith(".")
        ? staysIn(dir)(specifier, file)
        : !specifier.startsWith("@latchkey/") || names(specifier, "@latchkey/domain");
    expect(violations(sourceFiles(join(dir, "src")), allowed)).toEqual([]);
  });
});
