export type AuthSms = {
  readonly kind: "confirmation";
  readonly to: string;
  readonly otp: string;
};

export interface SmsSender {
  send(sms: AuthSms): Promise<void>;
}
