import type { SmsProviderName } from "./options.ts";

const LABELS: Readonly<Record<SmsProviderName, string>> = {
  twilio: "Twilio",
  messagebird: "MessageBird",
  textlocal: "Textlocal",
  vonage: "Vonage",
};

// Provider texts are for the log; a runaway HTML error page is not.
const MAX_PROVIDER_MESSAGE = 300;

export interface SmsProviderErrorDetails {
  readonly httpStatus?: number;
  /** The provider's own error code or message status, when it gave one. */
  readonly providerCode?: string;
  /** The provider's own description of the failure. */
  readonly providerMessage?: string;
  /** Values cut out of the message should the provider echo them: the code, credentials. */
  readonly redact?: readonly string[];
  readonly cause?: unknown;
}

/**
 * A failed exchange with an SMS provider, with the provider's own words: thrown as is when the failure may pass
 * (the caller retries), and carried as the `cause` of AuthError `sms_send_failed` when the provider refused for good.
 * Only chosen fields of the provider's answer go in, never the whole body, which may echo the SMS text and its code.
 */
export class SmsProviderError extends Error {
  override readonly name = "SmsProviderError";
  readonly httpStatus: number | undefined;
  readonly providerCode: string | undefined;

  constructor(
    readonly provider: SmsProviderName,
    summary: string,
    details: SmsProviderErrorDetails = {},
  ) {
    const facts = [
      details.httpStatus === undefined ? undefined : `HTTP ${details.httpStatus}`,
      details.providerCode === undefined ? undefined : `code ${details.providerCode}`,
    ].filter((fact) => fact !== undefined);
    const said =
      details.providerMessage === undefined ? "" : `: ${details.providerMessage.slice(0, MAX_PROVIDER_MESSAGE)}`;
    const message = `${LABELS[provider]} ${summary}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}${said}`;
    super(redact(message, details.redact ?? []), details.cause === undefined ? undefined : { cause: details.cause });
    this.httpStatus = details.httpStatus;
    this.providerCode = details.providerCode;
  }
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((secret) => secret.length > 0)
    .reduce((redacted, secret) => redacted.replaceAll(secret, "[redacted]"), text);
}
