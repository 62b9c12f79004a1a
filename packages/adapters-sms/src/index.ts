export { createSmsSender } from "./create-sms-sender.ts";
export { createLogSmsSender, type LoggedSms, type LogSmsSenderOptions } from "./log-sms-sender.ts";
export { createMessageBirdSmsSender, MESSAGEBIRD_API_URL } from "./messagebird-sms-sender.ts";
export type {
  MessageBirdSmsOptions,
  SmsProviderName,
  SmsSenderBaseOptions,
  SmsSenderOptions,
  TextlocalSmsOptions,
  TwilioSmsOptions,
  VonageSmsOptions,
} from "./options.ts";
export { DEFAULT_SMS_TIMEOUT_MS } from "./provider-http.ts";
export { SmsProviderError } from "./sms-provider-error.ts";
export { DEFAULT_MFA_PHONE_TEMPLATE, DEFAULT_SMS_TEMPLATE, type SmsTemplates, smsText, smsTextOf } from "./sms-text.ts";
export { createTextlocalSmsSender, TEXTLOCAL_API_URL } from "./textlocal-sms-sender.ts";
export { createTwilioSmsSender, TWILIO_API_URL } from "./twilio-sms-sender.ts";
export { createVonageSmsSender, VONAGE_API_URL } from "./vonage-sms-sender.ts";
