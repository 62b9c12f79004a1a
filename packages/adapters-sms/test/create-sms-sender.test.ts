import { afterEach, describe, expect, it } from "vitest";
import type { SmsProviderName, SmsSenderBaseOptions, SmsSenderOptions } from "../src/index.ts";
import { createSmsSender, SmsProviderError } from "../src/index.ts";
import { closedPortUrl, closeStandIns, expectTransient, SMS, startStandIn } from "./support.ts";

afterEach(closeStandIns);

const SECRETS = ["AC-sid-0001", "twilio-token-0002", "mb-key-0003", "tl-key-0004", "vn-key-0005", "vn-secret-0006"];

function optionsFor(provider: SmsProviderName, base: SmsSenderBaseOptions): SmsSenderOptions {
  switch (provider) {
    case "twilio":
      return {
        provider,
        accountSid: "AC-sid-0001",
        authToken: "twilio-token-0002",
        messageServiceSid: "+15005550006",
        ...base,
      };
    case "messagebird":
      return { provider, accessKey: "mb-key-0003", originator: "Latchkey", ...base };
    case "textlocal":
      return { provider, apiKey: "tl-key-0004", sender: "LTCHKY", ...base };
    case "vonage":
      return { provider, apiKey: "vn-key-0005", apiSecret: "vn-secret-0006", from: "Latchkey", ...base };
  }
}

const PROVIDERS: readonly [SmsProviderName, string, string][] = [
  ["twilio", "https://api.twilio.com/2010-04-01/Accounts/AC-sid-0001/Messages.json", "Twilio"],
  ["messagebird", "https://rest.messagebird.com/messages", "MessageBird"],
  ["textlocal", "https://api.textlocal.in/send/", "Textlocal"],
  ["vonage", "https://rest.nexmo.com/sms/json", "Vonage"],
];

describe("createSmsSender", () => {
  it.each(PROVIDERS)(
    "%s: posts to the real API through the injected fetch, bounded by a signal",
    async (provider, url) => {
      const calls: { url: string; init: RequestInit | undefined }[] = [];
      const fetch: typeof globalThis.fetch = async (input, init) => {
        calls.push({ url: String(input), init });
        return new Response("{}", { status: 503 });
      };
      await expectTransient(createSmsSender(optionsFor(provider, { fetch })).send(SMS), /HTTP 503/);
      expect(calls.map((call) => call.url)).toEqual([url]);
      expect(calls[0]?.init?.method).toBe("POST");
      expect(calls[0]?.init?.signal).toBeInstanceOf(AbortSignal);
    },
  );

  it("says only Twilio sends WhatsApp, so that the others' requests for it are refused before anything is sent", () => {
    const whatsapp = PROVIDERS.filter(([provider]) => createSmsSender(optionsFor(provider, {})).sendsWhatsapp === true);
    expect(whatsapp.map(([provider]) => provider)).toEqual(["twilio"]);
  });

  it.each(PROVIDERS)("%s: texts a phone factor's challenge with MFA_PHONE_TEMPLATE", async (provider) => {
    const sent: string[] = [];
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      sent.push(...new URLSearchParams(String(init?.body)).values());
      return new Response("{}", { status: 503 });
    };
    const templates = { template: "Sign in: {{ .Code }}", mfaTemplate: "Second step: {{ .Code }}" };
    const sender = createSmsSender(optionsFor(provider, { fetch, ...templates }));
    await expectTransient(sender.send({ ...SMS, kind: "mfa" }));
    await expectTransient(sender.send(SMS));
    expect(sent).toContain(`Second step: ${SMS.otp}`);
    expect(sent).toContain(`Sign in: ${SMS.otp}`);
    expect(sent.filter((value) => value.includes(SMS.otp))).toHaveLength(2);
  });

  it.each(PROVIDERS)("%s: a 500 is left to a retry", async (provider, _url, label) => {
    const standIn = await startStandIn(() => ({ status: 500, json: { error: "boom" } }));
    const sender = createSmsSender(optionsFor(provider, { baseUrl: standIn.url }));
    const error = await expectTransient(sender.send(SMS), new RegExp(`^${label} failed to take the SMS \\(HTTP 500`));
    expect(error).toBeInstanceOf(SmsProviderError);
    for (const secret of SECRETS) expect(error.message).not.toContain(secret);
    expect(standIn.requests).toHaveLength(1);
  });

  it.each(PROVIDERS)("%s: a provider that cannot be reached is left to a retry", async (provider, _url, label) => {
    const sender = createSmsSender(optionsFor(provider, { baseUrl: await closedPortUrl() }));
    const error = await expectTransient(sender.send(SMS), new RegExp(`^${label} could not be reached$`));
    expect(error.cause).toBeInstanceOf(Error);
  });

  it.each(PROVIDERS)("%s: a provider that never answers times out, left to a retry", async (provider, _url, label) => {
    const standIn = await startStandIn(() => "hang");
    const sender = createSmsSender(optionsFor(provider, { baseUrl: standIn.url, timeoutMs: 150 }));
    const started = Date.now();
    await expectTransient(sender.send(SMS), new RegExp(`^${label} did not answer within 150 ms$`));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(standIn.requests).toHaveLength(1);
  });

  it.each(PROVIDERS)("%s: a 2xx that is not the provider's JSON is left to a retry", async (provider) => {
    const standIn = await startStandIn(() => ({ status: 200, raw: "<html>captive portal</html>" }));
    await expectTransient(createSmsSender(optionsFor(provider, { baseUrl: standIn.url })).send(SMS));
  });

  it("refuses to build a sender whose settings are empty, naming them without values", () => {
    const build = () => createSmsSender({ provider: "vonage", apiKey: "vn-key-0005", apiSecret: " ", from: "" });
    expect(build).toThrow("SMS provider vonage needs SMS_VONAGE_API_SECRET, SMS_VONAGE_FROM");
    expect(() =>
      createSmsSender({ provider: "twilio", accountSid: "", authToken: "t", messageServiceSid: "m" }),
    ).toThrow(/SMS_TWILIO_ACCOUNT_SID$/);
  });
});
