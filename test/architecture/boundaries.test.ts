import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

// The hexagon's rules, checked on the source: the domain imports nothing foreign, and inside it a capability's use
// cases lean on services, never on another capability's; the HTTP layer knows the domain and its framework, never an
// adapter; an adapter knows the domain and its own library, never another adapter.
// docs/architecture.md says why each piece lives where it does.

const root = join(import.meta.dirname, "..", "..");
const packages = join(root, "packages");

/** The TypeScript files under `dir`; its tests too when `tests` is set. */
function sourceFiles(dir: string, { tests = false } = {}): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path, { tests });
    return entry.name.endsWith(".ts") && (tests || !entry.name.endsWith(".test.ts")) ? [path] : [];
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

  it("names no OAuth provider: which there are, and under which names, is the OAuth adapter's to say", () => {
    const providers = readdirSync(join(packages, "adapters-oauth", "src", "providers"))
      .filter((file) => file !== "index.ts")
      .map((file) => file.replace(/\.ts$/, ""));
    const naming = production.filter((file) => {
      const text = readFileSync(file, "utf8");
      // String literals only: a comment may name one as an example.
      return providers.some((name) => new RegExp(`(["'])${name}(_oidc)?\\1`).test(text));
    });
    expect(providers).toContain("github");
    expect(naming.map((file) => relative(src, file))).toEqual([]);
  });

  // The floors inside it (model, ports, services, use-cases), checked on tests as well: what two capabilities
  // share is a service, so no capability's folder is another's dependency.
  const useCases = join(src, "use-cases");
  const capabilities = readdirSync(useCases, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  /** Where a relative import leads, as path segments under src: `["use-cases", "sign-in", "…"]`. */
  const floorOf = (specifier: string, file: string) => relative(src, join(file, "..", specifier)).split(sep);

  it.each(capabilities)("use-cases/%s imports no other capability's use cases", (name) => {
    const own = (specifier: string, file: string) => {
      if (!specifier.startsWith(".")) return true;
      const [floor, capability] = floorOf(specifier, file);
      return floor !== "use-cases" || capability === name;
    };
    expect(violations(sourceFiles(join(useCases, name), { tests: true }), own)).toEqual([]);
  });

  it("lets services use the model, the ports and one another, never a use case", () => {
    const services = sourceFiles(join(src, "services"), { tests: true });
    expect(services.length).toBeGreaterThan(10);
    const below = (specifier: string, file: string) => {
      if (!specifier.startsWith(".")) return true;
      const [floor] = floorOf(specifier, file);
      // auth.ts binds the use cases, and index.ts re-exports them.
      return floor !== "use-cases" && floor !== "auth.ts" && floor !== "index.ts";
    };
    expect(violations(services, below)).toEqual([]);
  });
});

describe("the HTTP layer", () => {
  const src = join(packages, "http-hono", "src");

  it("knows the domain, its framework, its validator (and its JSON Schema form) and the tracing API, and no adapter", () => {
    const allowed = (specifier: string, file: string) =>
      staysIn(src)(specifier, file) ||
      ["@latchkey/domain", "hono", "valibot", "@valibot/to-json-schema", "@opentelemetry/api"].some((name) =>
        names(specifier, name),
      );
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
