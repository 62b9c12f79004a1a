/**
 * Where in an HTML document each `{{ … }}` action of an operator's template stands, so that its value can be
 * escaped for that place, as Go's html/template escapes GoTrue's templates: text, an attribute value (plain, URL,
 * script or style), a script or style element, a comment. Written here rather than taken from a library because
 * it must match what GoTrue's templates get from Go, and no JavaScript package does that contextual escaping for
 * templates of this syntax; it is a small tokenizer after the HTML standard's, enough to tell those places apart.
 */
export type HtmlContext =
  | { readonly kind: "text" }
  | { readonly kind: "comment" }
  /** Inside `<script>`, `<style>`, `<textarea>` or `<title>`, whose content is not markup. */
  | { readonly kind: "raw_text"; readonly element: RawTextElement }
  /** Where an attribute's name would stand. */
  | { readonly kind: "attribute_name" }
  | {
      readonly kind: "attribute_value";
      readonly type: AttributeType;
      /** The quote around the value; "" for an unquoted value. */
      readonly quote: '"' | "'" | "";
      /** The value up to the action, with earlier actions standing as one character each. */
      readonly before: string;
    };

type AttributeType = "plain" | "url" | "script" | "style";
type RawTextElement = "script" | "style" | "textarea" | "title";

const RAW_TEXT_ELEMENTS: readonly string[] = ["script", "style", "textarea", "title"];
/** Attributes whose value is a URL, as Go's html/template types them (besides names containing src, uri or url). */
const URL_ATTRIBUTES = new Set([
  "action",
  "archive",
  "background",
  "cite",
  "classid",
  "codebase",
  "data",
  "formaction",
  "href",
  "icon",
  "longdesc",
  "manifest",
  "poster",
  "profile",
  "usemap",
  "xmlns",
]);

/** Go's typing of an attribute by its name; a namespace prefix (`xlink:href`) is looked through. */
function attributeType(name: string): AttributeType {
  const local = name.toLowerCase().replace(/^[^:]*:/, "");
  if (local.startsWith("on")) return "script";
  if (local === "style") return "style";
  if (URL_ATTRIBUTES.has(local) || /src|uri|url/.test(local)) return "url";
  return "plain";
}

type State =
  | { readonly kind: "text" | "comment" }
  | { readonly kind: "raw_text"; readonly element: RawTextElement }
  | { readonly kind: "tag"; readonly element: string; readonly closing: boolean }
  | {
      readonly kind: "attribute_name" | "after_attribute_name" | "before_value";
      readonly element: string;
      readonly name: string;
    }
  | {
      readonly kind: "value";
      readonly element: string;
      readonly name: string;
      readonly quote: '"' | "'" | "";
      readonly before: string;
    };

const SPACE = /[\t\n\f\r ]/;
const LETTER = /[A-Za-z]/;

/**
 * The context of each action in a template split into its literal parts: `parts[i]` precedes action i, and the
 * last part follows the last action. Each action counts as one letter of whatever it stands in.
 */
export function actionContexts(parts: readonly string[]): HtmlContext[] {
  const ACTION = "\u0000";
  const source = parts.join(ACTION);
  const contexts: HtmlContext[] = [];
  let state: State = { kind: "text" };
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    if (char === ACTION) contexts.push(contextOf(state));
    const c = char === ACTION ? "x" : char;
    switch (state.kind) {
      case "text": {
        if (source.startsWith("<!--", i)) {
          state = { kind: "comment" };
          i += 4;
          continue;
        }
        const closing = source[i + 1] === "/";
        const nameStart = i + (closing ? 2 : 1);
        if (c === "<" && LETTER.test(source[nameStart] ?? "")) {
          let end = nameStart;
          while (end < source.length && /[A-Za-z0-9-]/.test(source[end]!)) end++;
          state = { kind: "tag", element: source.slice(nameStart, end).toLowerCase(), closing };
          i = end;
          continue;
        }
        i++;
        continue;
      }
      case "comment":
        if (source.startsWith("-->", i)) {
          state = { kind: "text" };
          i += 3;
          continue;
        }
        i++;
        continue;
      case "raw_text": {
        const end = `</${state.element}`;
        if (
          source.slice(i, i + end.length).toLowerCase() === end &&
          /[\t\n\f\r />]/.test(source[i + end.length] ?? ">")
        ) {
          state = { kind: "text" };
          continue;
        }
        i++;
        continue;
      }
      case "tag":
        if (SPACE.test(c) || c === "/") {
          i++;
        } else if (c === ">") {
          const raw: boolean = !state.closing && RAW_TEXT_ELEMENTS.includes(state.element);
          state = raw ? { kind: "raw_text", element: state.element as RawTextElement } : { kind: "text" };
          i++;
        } else {
          state = { kind: "attribute_name", element: state.element, name: "" };
        }
        continue;
      case "attribute_name":
        if (SPACE.test(c)) state = { ...state, kind: "after_attribute_name" };
        else if (c === "=") state = { ...state, kind: "before_value" };
        else if (c === ">" || c === "/") {
          state = { kind: "tag", element: state.element, closing: false };
          continue;
        } else state = { ...state, name: state.name + c };
        i++;
        continue;
      case "after_attribute_name":
        if (SPACE.test(c)) i++;
        else if (c === "=") {
          state = { ...state, kind: "before_value" };
          i++;
        } else state = { kind: "tag", element: state.element, closing: false };
        continue;
      case "before_value":
        if (SPACE.test(c)) i++;
        else if (c === '"' || c === "'") {
          state = { kind: "value", element: state.element, name: state.name, quote: c, before: "" };
          i++;
        } else if (c === ">") state = { kind: "tag", element: state.element, closing: false };
        else state = { kind: "value", element: state.element, name: state.name, quote: "", before: "" };
        continue;
      case "value": {
        const ends = state.quote === "" ? SPACE.test(c) || c === ">" : c === state.quote;
        if (ends) {
          state = { kind: "tag", element: state.element, closing: false };
          if (c !== ">") i++;
          continue;
        }
        state = { ...state, before: state.before + c };
        i++;
        continue;
      }
    }
  }
  return contexts;
}

function contextOf(state: State): HtmlContext {
  switch (state.kind) {
    case "text":
    case "comment":
      return { kind: state.kind };
    case "raw_text":
      return { kind: "raw_text", element: state.element };
    case "tag":
    case "attribute_name":
    case "after_attribute_name":
      return { kind: "attribute_name" };
    case "before_value":
      return { kind: "attribute_value", type: attributeType(state.name), quote: "", before: "" };
    case "value":
      return { kind: "attribute_value", type: attributeType(state.name), quote: state.quote, before: state.before };
  }
}
