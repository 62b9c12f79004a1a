import type { Context, Hono } from "hono";
import type { AppEnv } from "./app-env.ts";

/** A built file of the admin console (@latchkey/console reads them), keyed by its path under /console/. */
export interface ConsoleFile {
  readonly body: Uint8Array;
  readonly contentType: string;
}

/** The admin console's built files: `index.html` and `assets/<name>-<hash>.<ext>`. */
export interface ConsoleFiles {
  readonly files: ReadonlyMap<string, ConsoleFile>;
}

/** Where the console is served: beside the API, not in it (nor under /auth/v1). */
const CONSOLE_PATH = "/console";

/**
 * The page runs only its own script and stylesheet and talks only to this origin (the admin API at the root); no
 * other site may frame it (clickjacking an admin's clicks), the older X-Frame-Options saying the same.
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  // Never cached: it names the assets of the build being served.
  "Cache-Control": "no-store",
};

/** An asset's name carries its content's hash: a new build is a new name, so a year's caching is safe. */
const ASSET_CACHE = "public, max-age=31536000, immutable";

/**
 * GET /console (and /console/): the page; GET /console/assets/<file>: a built asset. Anything else under /console
 * is the API's 404. The page holds no data: an admin's requests are the admin API's, with the admin's own token.
 */
export function mountConsole(app: Hono<AppEnv>, { files }: ConsoleFiles): void {
  const page = files.get("index.html");
  if (page) {
    const answerPage = (c: Context<AppEnv>) => c.body(copy(page.body), 200, pageHeaders(page));
    app.get(CONSOLE_PATH, answerPage);
    app.get(`${CONSOLE_PATH}/`, answerPage);
  }
  app.get(`${CONSOLE_PATH}/assets/:file`, (c, next) => {
    const asset = files.get(`assets/${c.req.param("file")}`);
    if (!asset) return next();
    return c.body(copy(asset.body), 200, { "Content-Type": asset.contentType, "Cache-Control": ASSET_CACHE });
  });
}

function pageHeaders(page: ConsoleFile): Record<string, string> {
  return { ...PAGE_HEADERS, "Content-Type": page.contentType };
}

/** A body of its own per answer: the web Response may take ownership of the buffer it is given. */
const copy = (body: Uint8Array) => new Uint8Array(body);
