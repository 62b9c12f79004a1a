import { escapeHtml } from "./escape-html.ts";
import type { HtmlContext } from "./html-context.ts";

/** What Go's html/template puts in place of a value it refuses where it stands. */
const REFUSED = "ZgotmplZ";

/**
 * A template value escaped for where it stands, as Go's html/template escapes it for GoTrue: HTML-escaped in text;
 * in a URL attribute only http(s), mailto and relative URLs survive at the start, and the value is
 * percent-encoded as a URL (entirely, in the query); script and style get values that cannot leave the place they
 * stand in; comments get nothing. Attribute values are then escaped for their quoting.
 */
export function escapeForContext(value: string, context: HtmlContext): string {
  switch (context.kind) {
    case "text":
      return escapeHtml(value);
    case "comment":
      return "";
    case "raw_text":
      if (context.element === "script") return escapeScript(value);
      if (context.element === "style") return filterStyle(value);
      return escapeHtml(value);
    case "attribute_name":
      return /^[A-Za-z0-9-]+$/.test(value) ? value : REFUSED;
    case "attribute_value": {
      const escaped = escapeAttributeContent(value, context);
      return context.quote === "" ? escapeUnquoted(escaped) : escapeHtml(escaped);
    }
  }
}

function escapeAttributeContent(value: string, context: Extract<HtmlContext, { kind: "attribute_value" }>): string {
  switch (context.type) {
    case "plain":
      return value;
    case "script":
      return escapeScript(value);
    case "style":
      return filterStyle(value);
    case "url":
      if (context.before === "") return isSafeUrl(value) ? encodeUrl(value, "normalize") : `#${REFUSED}`;
      return encodeUrl(value, /[?#]/.test(context.before) ? "escape" : "normalize");
  }
}

/** Go's urlFilter: a scheme, if the value has one before any `/`, must be http, https or mailto. */
function isSafeUrl(url: string): boolean {
  const colon = url.indexOf(":");
  if (colon === -1) return true;
  const scheme = url.slice(0, colon);
  if (scheme.includes("/")) return true;
  return ["http", "https", "mailto"].includes(scheme.toLowerCase());
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[!#$&*+,/:;=?@[\]]/;

/**
 * Go's URL processing: `normalize` leaves a URL's reserved characters and existing escapes as they are and encodes
 * the rest; `escape` (a value in the query) encodes everything but the unreserved characters.
 */
function encodeUrl(value: string, mode: "normalize" | "escape"): string {
  let encoded = "";
  for (const char of value) {
    const keep = UNRESERVED.test(char) || (mode === "normalize" && (RESERVED.test(char) || char === "%"));
    encoded += keep ? char : percentEncode(char);
  }
  return encoded;
}

/** UTF-8 percent-encoding of one character; a lone surrogate, which has no UTF-8 form, as U+FFFD. */
function percentEncode(char: string): string {
  const bytes = new TextEncoder().encode(char);
  return [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

/**
 * A value that stays a value in script: every character but letters, digits and spaces as a `\uXXXX` escape, so it
 * can neither close a string, a comment or the element, nor form an operator outside a string.
 */
function escapeScript(value: string): string {
  return value.replace(/[^A-Za-z0-9 ]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Go's cssValueFilter, simplified: a plain value (a colour, a length, a name) or nothing. */
function filterStyle(value: string): string {
  return /^[A-Za-z0-9 #%.,_+-]*$/.test(value) ? value : REFUSED;
}

/** An unquoted attribute value ends at a space, `>` or a quote: everything but letters, digits and `-._` is escaped. */
function escapeUnquoted(value: string): string {
  return value.replace(/[^A-Za-z0-9\-._]/gu, (char) => `&#${char.codePointAt(0)};`);
}
