import { describeSmsSenderContract } from "@latchkey/domain/testing";
import { afterEach } from "vitest";
import {
  createLogSmsSender,
  createSmsSender,
  type LoggedSms,
  type SmsProviderName,
  type SmsSenderOptions,
} from "../src/index.ts";
import { closeStandIns, type RecordedRequest, type Reply, startStandIn } from "./support.ts";

afterEach(closeStandIns);

interface Provider {
  readonly options: (baseUrl: string) => SmsSenderOptions;
  /** The provider's documented answer to a message it took. */
  readonly accepted: Reply;
  /** Its answer to a message it refuses for good: an invalid number. */
  readonly refused: Reply;
  /** Where the request carries the number and the text. */
  readonly to: string;
  readonly text: string;
}

const unavailable: Reply = { status: 503, raw: "<html>Service Unavailable</html>" };

const PROVIDERS: Record<SmsProviderName, Provider> = {
  twilio: {
    options: (baseUrl) => ({
      provider: "twilio",
      accountSid: "AC0001",
      authToken: "tw-0002",
      messageServiceSid: "MG0003",
      baseUrl,
    }),
    accepted: {
      status: 201,
      json: { sid: "SM0123456789abcdef0123456789abcdef", status: "accepted", error_code: null },
    },
    refused: {
      status: 400,
      json: {
        code: 21211,
        message: "The 'To' number is not a valid phone number.",
        more_info: "https://www.twilio.com/docs/errors/21211",
        status: 400,
      },
    },
    to: "To",
    text: "Body",
  },
  messagebird: {
    options: (baseUrl) => ({ provider: "messagebird", accessKey: "mb-0004", originator: "Latchkey", baseUrl }),
    accepted: {
      status: 201,
      json: { id: "e8077d803532c0b5937c639b60216938", recipients: { totalCount: 1, totalSentCount: 1, items: [] } },
    },
    refused: {
      status: 422,
      json: { errors: [{ code: 9, description: "no (correct) recipients found", parameter: "recipient" }] },
    },
    to: "recipients",
    text: "body",
  },
  textlocal: {
    options: (baseUrl) => ({ provider: "textlocal", apiKey: "tl-0005", sender: "LTCHKY", baseUrl }),
    accepted: { status: 200, json: { status: "success", messages: [{ id: "1151346216", recipient: 15550100123 }] } },
    refused: { status: 200, json: { errors: [{ code: 32, message: "Invalid number format" }], status: "failure" } },
    to: "numbers",
    text: "message",
  },
  vonage: {
    options: (baseUrl) => ({ provider: "vonage", apiKey: "vn-0006", apiSecret: "vn-0007", from: "Latchkey", baseUrl }),
    accepted: {
      status: 200,
      json: { "message-count": "1", messages: [{ status: "0", "message-id": "0A0000000123ABCD1" }] },
    },
    refused: {
      status: 200,
      json: { "message-count": "1", messages: [{ status: "3", "error-text": "Invalid to address" }] },
    },
    to: "to",
    text: "text",
  },
};

for (const [name, provider] of Object.entries(PROVIDERS) as [SmsProviderName, Provider][]) {
  describeSmsSenderContract(name, async () => {
    const taking = await startStandIn(() => provider.accepted);
    const refusing = await startStandIn(() => provider.refused);
    const down = await startStandIn(() => unavailable);
    const read = (request: RecordedRequest) => ({
      to: request.form[provider.to] ?? "",
      text: request.form[provider.text] ?? "",
    });
    return {
      sender: createSmsSender(provider.options(taking.url)),
      delivered: async () => taking.requests.map(read),
      refused: createSmsSender(provider.options(refusing.url)),
      failing: createSmsSender(provider.options(down.url)),
    };
  });
}

describeSmsSenderContract("log", async () => {
  const written: LoggedSms[] = [];
  return { sender: createLogSmsSender({ write: (sms) => written.push(sms) }), delivered: async () => written };
});
