import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const app = fileURLToPath(new URL("app/", import.meta.url));
/** Where the server mounts the console (create-http-app.ts): the page names its assets from the root. */
const MOUNT = "/console";

/** What a build wrote: the hashed asset names, and their sizes in bytes. */
export interface ConsoleBuild {
  readonly script: string;
  readonly stylesheet: string;
  readonly bytes: Readonly<Record<string, number>>;
}

/**
 * The console into `outDir`, replacing what was there: `index.html` and `assets/console-<hash>.{js,css}`, minified.
 * The hash in each name lets the server cache assets for a year; index.html, which names them, is never cached.
 * Everything is in the bundle (no CDN at run time), so the console works on a network with no way out.
 */
export async function buildConsole(outDir: string): Promise<ConsoleBuild> {
  rmSync(outDir, { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: { console: join(app, "main.tsx") },
    outdir: join(outDir, "assets"),
    entryNames: "[name]-[hash]",
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
  });
  const outputs = Object.entries(metafile.outputs);
  const [scriptPath] = outputs.find(([path]) => path.endsWith(".js")) ?? [];
  const [stylesheetPath] = outputs.find(([path]) => path.endsWith(".css")) ?? [];
  if (!scriptPath || !stylesheetPath) throw new Error("the console build wrote no script or no stylesheet");
  const script = basename(scriptPath);
  const stylesheet = basename(stylesheetPath);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "index.html"), indexHtml(script, stylesheet));
  const bytes = Object.fromEntries(outputs.map(([path, output]) => [basename(path), output.bytes]));
  return { script, stylesheet, bytes };
}

/** The page: no inline script or style, as the console's Content-Security-Policy allows none. */
function indexHtml(script: string, stylesheet: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Latchkey console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${MOUNT}/assets/${stylesheet}">
<script type="module" src="${MOUNT}/assets/${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Latchkey console needs JavaScript.</noscript>
</body>
</html>
`;
}
