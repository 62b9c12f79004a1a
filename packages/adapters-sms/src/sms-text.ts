import type { AuthSms } from "@latchkey/domain";

/** GoTrue's default SMS_TEMPLATE. */
export const DEFAULT_SMS_TEMPLATE = "Your code is {{ .Code }}";
/** GoTrue's default MFA_PHONE_TEMPLATE: the same words. */
export const DEFAULT_MFA_PHONE_TEMPLATE = "Your code is {{ .Code }}";

// `{{ .Code }}` with or without the inner spaces; every other `{{ … }}` stays as written.
const CODE = /\{\{\s*\.Code\s*\}\}/g;

/** The SMS body: the template (the default when unset or empty, as GoTrue does) with the code in place of `{{ .Code }}`. */
export function smsText(template: string | undefined, code: string, fallback: string = DEFAULT_SMS_TEMPLATE): string {
  const text = template === undefined || template === "" ? fallback : template;
  // A function replacement, so `$` sequences are never read as replacement patterns.
  return text.replace(CODE, () => code);
}

/** The templates a sender writes its texts with. */
export interface SmsTemplates {
  /** SMS_TEMPLATE: every kind but `mfa`. */
  readonly template?: string | undefined;
  /** MFA_PHONE_TEMPLATE: a phone factor's challenge (`mfa`). */
  readonly mfaTemplate?: string | undefined;
}

/** The text of one SMS: a phone factor's challenge with MFA_PHONE_TEMPLATE, as GoTrue does; any other with SMS_TEMPLATE. */
export function smsTextOf(sms: AuthSms, templates: SmsTemplates): string {
  return sms.kind === "mfa"
    ? smsText(templates.mfaTemplate, sms.otp, DEFAULT_MFA_PHONE_TEMPLATE)
    : smsText(templates.template, sms.otp);
}
