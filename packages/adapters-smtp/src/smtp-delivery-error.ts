/** Nodemailer's error fields worth keeping; everything else about the failed mail stays out of the error. */
interface NodemailerErrorFields {
  readonly code?: unknown;
  readonly responseCode?: unknown;
  readonly command?: unknown;
}

const MAX_DETAIL = 300;

/**
 * A failed SMTP exchange. The message holds nodemailer's description (which quotes the server's reply) with the
 * email's link, token and code cut out, and never the body: the error is logged, the mail is not.
 */
export class SmtpDeliveryError extends Error {
  override readonly name = "SmtpDeliveryError";
  /** Nodemailer's code: ECONNECTION, ETIMEDOUT, EAUTH, EENVELOPE, EMESSAGE, … */
  readonly code: string | undefined;
  /** The server's SMTP reply code, when it answered. */
  readonly responseCode: number | undefined;
  /** The SMTP command that failed, when known. */
  readonly command: string | undefined;

  constructor(error: unknown, secrets: readonly string[]) {
    const fields: NodemailerErrorFields = typeof error === "object" && error !== null ? error : {};
    const detail = error instanceof Error ? error.message : String(error);
    super(`SMTP delivery failed: ${redact(detail, secrets).slice(0, MAX_DETAIL)}`);
    this.code = typeof fields.code === "string" ? fields.code : undefined;
    this.responseCode = typeof fields.responseCode === "number" ? fields.responseCode : undefined;
    this.command = typeof fields.command === "string" ? fields.command : undefined;
  }
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets
    .filter((secret) => secret.length > 0)
    .reduce((redacted, secret) => redacted.replaceAll(secret, "[redacted]"), text);
}
