/** An address a person is reached at and signs in by: an email address (lower-cased) or a phone number (E.164). */
export interface Contact {
  readonly provider: "email" | "phone";
  readonly address: string;
}
