// Which `redirect_to` URLs Latchkey will send a browser (and the tokens riding on it) to.
// Allowed: the SITE_URL origin (same scheme, host and port; any port on a loopback SITE_URL, so local dev servers
// work), or a URI_ALLOW_LIST glob as Supabase reads them (gobwas/glob, separators `.` `/`: `*` and `?` stop at
// them, `**` does not). Anything else is refused and the caller falls back to the next candidate, then SITE_URL.
// Why so strict:
// - One parser, WHATWG `URL` (the browser's). Input it would silently repair (whitespace, controls, backslashes,
//   non-ASCII, `https:host`, `https:///host`) is refused: another parser down the line may repair it differently.
// - The authority must already be written the way the parser serialises it. That one comparison refuses userinfo
//   (`site.com@evil.com`), percent-encoded or Unicode hosts, and numeric IPv4 spellings (`2130706433`, `0x7f.1`).
// - Trailing-dot hosts (`site.com.`) are refused: one host to DNS, a different one to cookies and CORS.
// - Globs are matched per component (host glob against the host, the rest against path + query), so a `**` in a
//   host pattern cannot reach into the path (`https://evil.com/--team.vercel.app`); the fragment never takes part.
// - Non-web schemes pass only through an allow-list entry naming the scheme literally; script, data and file never.
// - Candidates are capped in length: patterns with several `**` backtrack polynomially.

/** SITE_URL and URI_ALLOW_LIST, as the domain sees them. */
export interface RedirectPolicy {
  readonly siteUrl: string;
  readonly allowList: readonly string[];
}

interface CompiledPattern {
  /** With the colon, as `URL.protocol` has it. */
  readonly scheme: string;
  /** Null when the entry has no `//authority`: it then matches only host-less URLs (`com.example.app:/cb`). */
  readonly host: RegExp | null;
  readonly rest: RegExp;
}

const MAX_LENGTH = 2048;
/** Printable ASCII but `"`, `<`, `>` and `\`: what a serialised URL can hold, minus markup and backslash tricks. */
const SAFE_CHARACTERS = /^[\x21\x23-\x3b\x3d\x3f-\x5b\x5d-\x7e]+$/;
const CANDIDATE_SHAPE = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/?#]*))?/i;
const PATTERN_SHAPE = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/]*))?(.*)$/is;
/** WHATWG "special" schemes: the parser invents an authority for them when `//` is missing. */
const SPECIAL_SCHEMES = new Set(["http", "https", "ws", "wss", "ftp", "file"]);
const FORBIDDEN_SCHEMES = new Set(["javascript", "vbscript", "data", "file", "blob", "about", "filesystem"]);
const DEFAULT_PORTS: ReadonlyMap<string, string> = new Map([
  ["http:", "80"],
  ["https:", "443"],
  ["ws:", "80"],
  ["wss:", "443"],
  ["ftp:", "21"],
]);
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const compiledPatterns = new Map<string, CompiledPattern | null>();

/** Whether `candidate` may be redirected to. Never throws. */
export function isAllowedRedirect(candidate: string, policy: RedirectPolicy): boolean {
  try {
    const url = parseStrictly(candidate);
    if (url === null) return false;
    return isOnSite(url, policy.siteUrl) || policy.allowList.some((pattern) => matches(url, compile(pattern)));
  } catch {
    return false;
  }
}

/** The first allowed candidate, in order; SITE_URL when none is. Candidates may be undefined or empty. */
export function chooseRedirect(candidates: readonly (string | undefined)[], policy: RedirectPolicy): string {
  for (const candidate of candidates) {
    if (candidate !== undefined && isAllowedRedirect(candidate, policy)) return candidate;
  }
  return policy.siteUrl;
}

/** The parsed candidate, or null unless it is absolute, well-formed and written exactly as the parser reads it. */
function parseStrictly(raw: string): URL | null {
  if (raw.length > MAX_LENGTH || !SAFE_CHARACTERS.test(raw)) return null;
  const shape = CANDIDATE_SHAPE.exec(raw);
  if (shape === null) return null;
  const scheme = shape[1]!.toLowerCase();
  const authority = shape[2]?.toLowerCase();
  if (FORBIDDEN_SCHEMES.has(scheme) || (SPECIAL_SCHEMES.has(scheme) && !authority)) return null;
  const url = new URL(raw);
  // Userinfo is also caught by the authority comparison below; refused here by name so it never hinges on it.
  if (url.username !== "" || url.password !== "" || url.hostname.endsWith(".")) return null;
  if (authority !== undefined && authority !== url.host.toLowerCase()) {
    // The one tolerated spelling difference: an explicit default port, which the parser drops.
    const defaultPort = DEFAULT_PORTS.get(url.protocol);
    if (url.port !== "" || defaultPort === undefined || authority !== `${url.hostname}:${defaultPort}`) return null;
  }
  return url;
}

function isOnSite(url: URL, siteUrl: string): boolean {
  let site: URL;
  try {
    site = new URL(siteUrl);
  } catch {
    return false;
  }
  return (
    site.hostname !== "" &&
    url.protocol === site.protocol &&
    url.hostname === site.hostname &&
    (url.port === site.port || LOOPBACK_HOSTS.has(site.hostname))
  );
}

function matches(url: URL, pattern: CompiledPattern | null): boolean {
  if (pattern === null || url.protocol !== pattern.scheme) return false;
  const hostMatches = pattern.host === null ? url.host === "" : pattern.host.test(url.host);
  return hostMatches && pattern.rest.test(url.pathname + url.search);
}

/** Null for an entry whose scheme is not literal (`*://x`, `http*://x`) or that is no URL at all: it matches nothing. */
function compile(pattern: string): CompiledPattern | null {
  let compiled = compiledPatterns.get(pattern);
  if (compiled === undefined) {
    const shape = PATTERN_SHAPE.exec(pattern.trim());
    compiled =
      shape === null
        ? null
        : {
            scheme: `${shape[1]!.toLowerCase()}:`,
            host: shape[2] === undefined ? null : new RegExp(`^${globToRegExp(shape[2])}$`, "is"),
            // Entries may be written with or without a trailing slash.
            rest: new RegExp(`^${globToRegExp(shape[3]!.replace(/\/+$/, ""))}/?$`, "s"),
          };
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

function globToRegExp(glob: string): string {
  return glob.replace(/\*\*+|\*|\?|[.+^${}()|[\]\\]/g, (token) => {
    if (token === "*") return "[^./]*";
    if (token === "?") return "[^./]";
    return token.startsWith("*") ? ".*" : `\\${token}`;
  });
}
