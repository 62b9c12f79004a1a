/** The providers an SmsSender can speak to (SMS_PROVIDER). */
export type SmsProviderName = "twilio" | "messagebird" | "textlocal" | "vonage";

/** What every provider's sender accepts besides its credentials. */
export interface SmsSenderBaseOptions {
  /** SMS_TEMPLATE; only `{{ .Code }}` is expanded. Unset or empty: "Your code is {{ .Code }}". */
  readonly template?: string;
  /** MFA_PHONE_TEMPLATE, for a phone factor's challenge (`mfa`); as SMS_TEMPLATE otherwise. */
  readonly mfaTemplate?: string;
  /** Bound on each request to the provider, answer included; default 10 000 ms. */
  readonly timeoutMs?: number;
  /** The provider's API origin; default the real one. Tests point it at a local stand-in. */
  readonly baseUrl?: string;
  /** Default the global fetch. */
  readonly fetch?: typeof globalThis.fetch;
}

export interface TwilioSmsOptions extends SmsSenderBaseOptions {
  /** SMS_TWILIO_ACCOUNT_SID */
  readonly accountSid: string;
  /** SMS_TWILIO_AUTH_TOKEN */
  readonly authToken: string;
  /** SMS_TWILIO_MESSAGE_SERVICE_SID: a messaging service SID (MG…) or the sender number. */
  readonly messageServiceSid: string;
  /**
   * SMS_TWILIO_CONTENT_SID: an approved WhatsApp template (HX…) whose variable `1` is the code, sent instead of
   * the text; WhatsApp takes free text only within 24 hours of the user's last message.
   */
  readonly contentSid?: string | undefined;
}

export interface MessageBirdSmsOptions extends SmsSenderBaseOptions {
  /** SMS_MESSAGEBIRD_ACCESS_KEY */
  readonly accessKey: string;
  /** SMS_MESSAGEBIRD_ORIGINATOR: a number with + or a company name. */
  readonly originator: string;
}

export interface TextlocalSmsOptions extends SmsSenderBaseOptions {
  /** SMS_TEXTLOCAL_API_KEY */
  readonly apiKey: string;
  /** SMS_TEXTLOCAL_SENDER */
  readonly sender: string;
}

export interface VonageSmsOptions extends SmsSenderBaseOptions {
  /** SMS_VONAGE_API_KEY */
  readonly apiKey: string;
  /** SMS_VONAGE_API_SECRET */
  readonly apiSecret: string;
  /** SMS_VONAGE_FROM: a number or an alphanumeric sender. */
  readonly from: string;
}

/** The configured provider and its settings, for createSmsSender. */
export type SmsSenderOptions =
  | ({ readonly provider: "twilio" } & TwilioSmsOptions)
  | ({ readonly provider: "messagebird" } & MessageBirdSmsOptions)
  | ({ readonly provider: "textlocal" } & TextlocalSmsOptions)
  | ({ readonly provider: "vonage" } & VonageSmsOptions);
