/** The number's digits without E.164's leading `+`, as MessageBird, Textlocal and Vonage take it. */
export function bareNumber(e164: string): string {
  return e164.replace(/\s+/g, "").replace(/^\+/, "");
}

/** The number with its leading `+`, which Twilio requires. */
export function plusNumber(e164: string): string {
  return `+${bareNumber(e164)}`;
}
