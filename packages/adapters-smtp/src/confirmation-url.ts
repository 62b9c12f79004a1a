import type { LinkEmail } from "@latchkey/domain";
import { EMAIL_KINDS } from "./email-kinds.ts";
import type { RenderOptions } from "./options.ts";

const DEFAULT_URL_PATH = "/verify";

/**
 * The link of an email: `{API_EXTERNAL_URL}{path}?token=…&type=…&redirect_to=…`.
 *
 * The path is APPENDED to the external URL's own path (`https://x.example.com/auth/v1` + `/verify` →
 * `https://x.example.com/auth/v1/verify`), unlike GoTrue, which replaces it: self-hosters who serve the API under
 * a path prefix (as Supabase's gateway does with /auth/v1) put that prefix in API_EXTERNAL_URL and expect links to
 * keep it. An absolute http(s) URL in the path setting is used as it stands, for links served elsewhere.
 * Query values are encoded by URLSearchParams, so `&`, `=`, `#` and spaces in redirect_to survive the round trip.
 */
export function confirmationUrl(email: LinkEmail, options: RenderOptions): string {
  const urlPath = EMAIL_KINDS[email.kind].urlPath;
  const path = (urlPath && options.urlPaths?.[urlPath]) || DEFAULT_URL_PATH;
  const url = isAbsoluteHttpUrl(path) ? new URL(path) : appendPath(new URL(options.externalUrl), path);
  url.hash = "";
  url.searchParams.set("token", email.linkToken);
  url.searchParams.set("type", email.linkType);
  url.searchParams.set("redirect_to", email.redirectTo);
  return url.toString();
}

function appendPath(base: URL, path: string): URL {
  const tail = path.startsWith("/") ? path : `/${path}`;
  base.pathname = `${base.pathname.replace(/\/+$/, "")}${tail}`;
  return base;
}

function isAbsoluteHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
}
