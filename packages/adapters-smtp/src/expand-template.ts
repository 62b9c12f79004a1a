/** What a template can refer to: `{{ .Name }}` and `{{ .Data.key }}`. */
export interface TemplateVariables {
  readonly values: ReadonlyMap<string, string>;
  /** User metadata; only top-level keys are reachable. */
  readonly data: Readonly<Record<string, unknown>>;
}

// One `{{ … }}` action, with Go's optional trim markers `{{-` and `-}}` (accepted, but whitespace is kept).
const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const FIELD = /^\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?$/;

/**
 * Replaces each `{{ .Name }}` / `{{ .Data.key }}` with its value passed through `encode`, which also learns the
 * action's place among the template's actions (0 for the first); anything else between `{{ }}` (unknown names,
 * `if`, pipelines) renders as empty. One pass over the template only: substituted values are never scanned again,
 * so user data holding `{{ .Token }}` stays literal text.
 */
export function expandTemplate(
  template: string,
  variables: TemplateVariables,
  encode: (value: string, action: number) => string,
): string {
  let action = 0;
  return template.replace(ACTION, (_action, expression: string) => {
    const value = lookup(expression, variables);
    const index = action++;
    return value === undefined ? "" : encode(value, index);
  });
}

/** The template's text around its actions: one more part than there are actions. */
export function literalParts(template: string): string[] {
  return template.split(new RegExp(ACTION.source.replace("(", "(?:"), "g"));
}

function lookup(expression: string, variables: TemplateVariables): string | undefined {
  const field = FIELD.exec(expression);
  if (!field) return undefined;
  const [, name, key] = field;
  if (name === undefined) return undefined;
  if (key === undefined) return variables.values.get(name);
  if (name !== "Data") return undefined;
  // Own keys only: `{{ .Data.constructor }}` must not reach the prototype.
  if (!Object.hasOwn(variables.data, key)) return undefined;
  return dataValue(variables.data[key]);
}

// Scalars print as themselves; objects, arrays and null print as empty rather than "[object Object]".
function dataValue(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return undefined;
}
