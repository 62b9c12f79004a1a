import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";

/** A built file of the console, as the server answers it. */
export interface ConsoleFile {
  readonly body: Uint8Array;
  readonly contentType: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * The console as `buildConsole` wrote it into `dir`, read into memory once (a few tens of KiB): `index.html` and
 * `assets/<name>-<hash>.<ext>`, keyed by those paths. Undefined when `dir` holds no build.
 */
export function readConsoleFiles(dir: string): ReadonlyMap<string, ConsoleFile> | undefined {
  if (!existsSync(join(dir, "index.html"))) return undefined;
  const files = new Map<string, ConsoleFile>([["index.html", fileAt(dir, "index.html")]]);
  const assets = join(dir, "assets");
  if (existsSync(assets)) {
    for (const name of readdirSync(assets)) files.set(`assets/${name}`, fileAt(dir, `assets/${name}`));
  }
  return files;
}

function fileAt(dir: string, path: string): ConsoleFile {
  const contentType = CONTENT_TYPES[extname(path)] ?? "application/octet-stream";
  return { body: readFileSync(join(dir, path)), contentType };
}
