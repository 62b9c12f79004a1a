/**
 * The emails the domain asks for, as one union: a new kind is a new member that every adapter must handle.
 * Links are built by the adapter from `linkToken` and the configured external URL and paths.
 */
export type AuthEmail = {
  readonly kind: "confirmation";
  readonly to: string;
  readonly linkToken: string;
  readonly otp: string;
  readonly redirectTo: string;
};

export interface Mailer {
  send(email: AuthEmail): Promise<void>;
}
