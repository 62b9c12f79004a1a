/** GoTrue's default SMS_TEMPLATE. */
export const DEFAULT_SMS_TEMPLATE = "Your code is {{ .Code }}";

// `{{ .Code }}` with or without the inner spaces; every other `{{ … }}` stays as written.
const CODE = /\{\{\s*\.Code\s*\}\}/g;

/** The SMS body: the template (the default when unset or empty, as GoTrue does) with the code in place of `{{ .Code }}`. */
export function smsText(template: string | undefined, code: string): string {
  const text = template === undefined || template === "" ? DEFAULT_SMS_TEMPLATE : template;
  // A function replacement, so `$` sequences are never read as replacement patterns.
  return text.replace(CODE, () => code);
}
