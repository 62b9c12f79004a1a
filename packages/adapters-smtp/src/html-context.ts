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
  | TagState
  | AttributeState
  | ValueState;

type TagState = { readonly kind: "tag"; readonly element: string; readonly closing: boolean };
type AttributeState = {
  readonly kind: "attribute_name" | "after_attribute_name" | "before_value";
  readonly element: string;
  readonly name: string;
};
type ValueState = {
  readonly kind: "value";
  readonly element: string;
  readonly name: string;
  readonly quote: '"' | "'" | "";
  readonly before: string;
};

/** Where the tokenizer is: its state, and the index of the next character to read. */
interface Position {
  readonly state: State;
  readonly i: number;
}

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
  let at: Position = { state: { kind: "text" }, i: 0 };
  while (at.i < source.length) {
    const char = source[at.i]!;
    if (char === ACTION) contexts.push(contextOf(at.state));
    at = step(source, at, char === ACTION ? "x" : char);
  }
  return contexts;
}

/**
 * One step of the tokenizer from `at`, where `c` is the character there (an action read as a letter): the next
 * state, and where it reads next (the same character again when the step only changed state).
 */
function step(source: string, at: Position, c: string): Position {
  const { state, i } = at;
  switch (state.kind) {
    case "text":
      return inText(source, i, c);
    case "comment":
      return source.startsWith("-->", i) ? { state: { kind: "text" }, i: i + 3 } : { state, i: i + 1 };
    case "raw_text": {
      const end = `</${state.element}`;
      const ends =
        source.slice(i, i + end.length).toLowerCase() === end && /[\t\n\f\r />]/.test(source[i + end.length] ?? ">");
      return ends ? { state: { kind: "text" }, i } : { state, i: i + 1 };
    }
    case "tag":
      return inTag(state, i, c);
    case "attribute_name":
    case "after_attribute_name":
    case "before_value":
      return inAttribute(state, i, c);
    case "value":
      return inValue(state, i, c);
  }
}

/** In text, a comment or a tag may open. */
function inText(source: string, i: number, c: string): Position {
  if (source.startsWith("<!--", i)) return { state: { kind: "comment" }, i: i + 4 };
  const closing = source[i + 1] === "/";
  const nameStart = i + (closing ? 2 : 1);
  if (c === "<" && LETTER.test(source[nameStart] ?? "")) {
    let end = nameStart;
    while (end < source.length && /[A-Za-z0-9-]/.test(source[end]!)) end++;
    return { state: { kind: "tag", element: source.slice(nameStart, end).toLowerCase(), closing }, i: end };
  }
  return { state: { kind: "text" }, i: i + 1 };
}

/** Between a tag's attributes: the tag ends (into raw text for those elements), or an attribute's name starts. */
function inTag(state: TagState, i: number, c: string): Position {
  if (SPACE.test(c) || c === "/") return { state, i: i + 1 };
  if (c === ">") {
    const raw: boolean = !state.closing && RAW_TEXT_ELEMENTS.includes(state.element);
    return { state: raw ? { kind: "raw_text", element: state.element as RawTextElement } : { kind: "text" }, i: i + 1 };
  }
  return { state: { kind: "attribute_name", element: state.element, name: "" }, i };
}

/** An attribute's name, and what may stand between it and its value. */
function inAttribute(state: AttributeState, i: number, c: string): Position {
  const tag: TagState = { kind: "tag", element: state.element, closing: false };
  switch (state.kind) {
    case "attribute_name":
      if (SPACE.test(c)) return { state: { ...state, kind: "after_attribute_name" }, i: i + 1 };
      if (c === "=") return { state: { ...state, kind: "before_value" }, i: i + 1 };
      if (c === ">" || c === "/") return { state: tag, i };
      return { state: { ...state, name: state.name + c }, i: i + 1 };
    case "after_attribute_name":
      if (SPACE.test(c)) return { state, i: i + 1 };
      if (c === "=") return { state: { ...state, kind: "before_value" }, i: i + 1 };
      return { state: tag, i };
    case "before_value": {
      if (SPACE.test(c)) return { state, i: i + 1 };
      const value = { kind: "value", element: state.element, name: state.name, before: "" } as const;
      if (c === '"' || c === "'") return { state: { ...value, quote: c }, i: i + 1 };
      if (c === ">") return { state: tag, i };
      return { state: { ...value, quote: "" }, i };
    }
  }
}

/** An attribute's value, up to its closing quote (or, unquoted, a space or the tag's end). */
function inValue(state: ValueState, i: number, c: string): Position {
  const ends = state.quote === "" ? SPACE.test(c) || c === ">" : c === state.quote;
  if (ends) return { state: { kind: "tag", element: state.element, closing: false }, i: c !== ">" ? i + 1 : i };
  return { state: { ...state, before: state.before + c }, i: i + 1 };
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
