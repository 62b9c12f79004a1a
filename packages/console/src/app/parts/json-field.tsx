/** A JSON object as text: parsed, or why not (a value that is not an object is refused, as the API would). */
export function parseObject(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { error: "Must be a JSON object." };
  return { value: value as Record<string, unknown> };
}

/** A labelled textarea for a JSON object, its error next to it, tied to it for assistive technology. */
export function JsonField(props: {
  id: string;
  label: string;
  text: string;
  error: string | undefined;
  onInput: (text: string) => void;
}) {
  const errorId = `${props.id}-error`;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        class="json"
        rows={8}
        spellcheck={false}
        value={props.text}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={props.error ? errorId : undefined}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      {props.error && (
        <p id={errorId} class="field-error" role="alert">
          {props.error}
        </p>
      )}
    </div>
  );
}
