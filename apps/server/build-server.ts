import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

/**
 * The server as plain JavaScript: `<outdir>/main.mjs` and its chunks. `outdir` must lie inside this package, so that
 * what stays in node_modules (below) is found from there.
 */
export async function buildServer(outdir: string): Promise<void> {
  await build({
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
  });
}
