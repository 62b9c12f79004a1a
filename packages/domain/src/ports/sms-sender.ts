export type AuthSms = {
  readonly kind: "confirmation" | "reauthentication";
  readonly to: string;
  readonly otp: string;
};

export interface SmsSender {
  /** Sends one SMS; throws when the provider refuses it or cannot be reached (the outbox retries). */
  send(sms: AuthSms): Promise<void>;
}
