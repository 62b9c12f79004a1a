// `pnpm build`: the server as plain JavaScript in dist/, for production. Running the TypeScript sources through
// tsx costs a transpiler in every process (about 60 MB of memory) and start-up time; the bundle costs neither.

import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

await build({
  entryPoints: [`${here}src/main.ts`],
  outdir: `${here}dist`,
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
