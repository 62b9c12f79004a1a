import { readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildConsole } from "@latchkey/console/build";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = resolve(here, "..", "..");

/**
 * The server as plain JavaScript: `<outdir>/main.mjs` and its chunks, and the admin console's files in
 * `<outdir>/console`, where the server looks for them (CONSOLE_ENABLED). `outdir` must lie inside this package, so
 * that what stays in node_modules (below) is found from there.
 */
export async function buildServer(outdir: string): Promise<void> {
  const { metafile } = await build({
    entryPoints: [`${here}src/main.ts`],
    outdir,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outExtension: { ".js": ".mjs" },
    sourcemap: true,
    // Native addons (a dependency of this package for that reason, though adapters-crypto is what uses them), and
    // PGlite's WASM and data files found next to its module, load from node_modules; pg-native
    // is pg's optional driver, not installed.
    external: ["@node-rs/argon2", "@node-rs/bcrypt", "@electric-sql/pglite", "pg-native"],
    // Bundled CommonJS dependencies call require() for Node's own modules.
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
    logLevel: "warning",
    metafile: true,
  });
  const testSupport = testSupportIn(Object.keys(metafile.inputs));
  if (testSupport.length > 0) throw new Error(`The bundle would carry test support: ${testSupport.join(", ")}`);
  const modules = Object.keys(metafile.outputs).filter((path) => path.endsWith(".mjs"));
  await Promise.all(modules.map(async (path) => writeFile(path, asciiOnly(await readFile(path, "utf8")))));
  await buildConsole(join(outdir, "console"));
}

/**
 * Of a bundle's inputs (paths from the working directory), our modules that are test support, in a `test/` or
 * `testing/` folder (@latchkey/server/testing, the packages' ./testing entries): production must never load them.
 * A dependency's own files are not ours to judge.
 */
export function testSupportIn(inputs: readonly string[]): string[] {
  return inputs
    .map((input) => relative(repo, resolve(input)).replaceAll("\\", "/"))
    .filter((path) => !path.startsWith("../") && !path.includes("node_modules/") && /(^|\/)test(ing)?\//.test(path));
}

/**
 * A module's source with every character outside ASCII escaped (`\u2192`). V8 keeps each module's source in
 * memory while the process runs (a function is compiled when first called), at one byte a character when every
 * character is Latin-1, else at two: one dash in a comment (U+2013) doubled the 1.8 MB of main.mjs in the heap.
 * esbuild already escapes them in code (its default charset), but copies the comments it keeps as they are; in a
 * comment, and anywhere esbuild could still leave one (strings, regular expressions, names), the escape means the
 * same. Comments run to the end of their line, so the source map's columns still point at the same code.
 */
export function asciiOnly(source: string): string {
  return source.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
