/** A token character of RFC 1521, as Go's mime package reads one: printable ASCII but its tspecials. */
const TOKEN = "[!#$%&'*+\\-.0-9A-Z^_`a-z{|}~]+";
const LEADING_TOKEN = new RegExp(`^${TOKEN}`);
/** `; name=value`, the value a token or a quoted string, and what follows. */
const PARAMETER = new RegExp(`^\\s*;\\s*(${TOKEN})\\s*=\\s*(?:${TOKEN}|"(?:[^"\\\\]|\\\\.)*")`);

const leadingToken = (text: string): string => LEADING_TOKEN.exec(text)?.[0] ?? "";

/** Go's checkMediaTypeDisposition: `type/subtype`, or a lone token. */
function problemOfBase(base: string): string | null {
  const type = leadingToken(base);
  if (type === "") return "mime: no media type";
  const rest = base.slice(type.length);
  if (rest === "") return null;
  if (!rest.startsWith("/")) return "mime: expected slash after first token";
  const subtype = leadingToken(rest.slice(1));
  if (subtype === "") return "mime: expected token after slash";
  if (rest.length > subtype.length + 1) return "mime: unexpected content after media subtype";
  return null;
}

/** Go's parameter loop: each `; name=value` once, a trailing `;` ignored. */
function problemOfParameters(parameters: string): string | null {
  const seen = new Set<string>();
  let rest = parameters;
  while (rest.trim() !== "") {
    const match = PARAMETER.exec(rest);
    if (!match) return rest.trim() === ";" ? null : "mime: invalid media parameter";
    const name = match[1]!.toLowerCase();
    if (seen.has(name)) return "mime: duplicate parameter name";
    seen.add(name);
    rest = rest.slice(match[0].length);
  }
  return null;
}

/**
 * The media type of a Content-Type header, lower case and without its parameters, or why it is none: Go's
 * mime.ParseMediaType, whose error messages GoTrue repeats to the client ("Invalid Content-Type header: …").
 */
export function parseMediaType(header: string): { mediaType: string } | { problem: string } {
  const semicolon = header.indexOf(";");
  const base = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  const problem = problemOfBase(base) ?? (semicolon === -1 ? null : problemOfParameters(header.slice(semicolon)));
  return problem === null ? { mediaType: base } : { problem };
}
