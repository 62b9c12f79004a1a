import { afterEach, describe, expect, it } from "vitest";
import type { TwilioSmsOptions } from "../src/index.ts";
import { createTwilioSmsSender, SmsProviderError } from "../src/index.ts";
import type { RecordedRequest, Reply } from "./support.ts";
import {
  basicCredentials,
  closeStandIns,
  expectRefusal,
  expectTransient,
  onlyRequest,
  SMS,
  startStandIn,
} from "./support.ts";

const ACCOUNT_SID = "AC0123456789abcdef0123456789abcdef";
const AUTH_TOKEN = "twilio-auth-token-f00d";
const SERVICE_SID = "MGfedcba9876543210fedcba9876543210";
const MESSAGES_PATH = `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`;

afterEach(closeStandIns);

/**
 * Twilio's message resource, as its Messages API answers a created message; or its refusal of a From and To of
 * different channels (one `whatsapp:`, the other not), as Twilio refuses them.
 */
function messageResource(request: RecordedRequest, overrides: Record<string, unknown> = {}): Reply {
  const isWhatsapp = (address: string | undefined) => address?.startsWith("whatsapp:");
  if (request.form.From !== undefined && isWhatsapp(request.form.From) !== isWhatsapp(request.form.To)) {
    return {
      status: 400,
      json: {
        code: 21910,
        message: "Invalid From and To pair. From and To should be of the same channel",
        more_info: "https://www.twilio.com/docs/errors/21910",
        status: 400,
      },
    };
  }
  return {
    status: 201,
    json: {
      account_sid: ACCOUNT_SID,
      api_version: "2010-04-01",
      body: request.form.Body,
      date_created: "Thu, 24 Aug 2023 05:01:45 +0000",
      direction: "outbound-api",
      error_code: null,
      error_message: null,
      from: request.form.From ?? null,
      messaging_service_sid: request.form.MessagingServiceSid ?? null,
      num_segments: "0",
      price: null,
      sid: "SM1234567890abcdef1234567890abcdef",
      status: request.form.MessagingServiceSid ? "accepted" : "queued",
      to: request.form.To,
      uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/SM1234567890abcdef1234567890abcdef.json`,
      ...overrides,
    },
  };
}

async function twilio(reply: (request: RecordedRequest) => Reply, overrides: Partial<TwilioSmsOptions> = {}) {
  const standIn = await startStandIn(reply);
  const sender = createTwilioSmsSender({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    messageServiceSid: SERVICE_SID,
    baseUrl: standIn.url,
    ...overrides,
  });
  return { standIn, sender };
}

function expectTwilioRequest(request: RecordedRequest, form: Record<string, string>): void {
  expect(request.method).toBe("POST");
  expect(request.path).toBe(MESSAGES_PATH);
  expect(basicCredentials(request.headers.authorization)).toEqual([ACCOUNT_SID, AUTH_TOKEN]);
  expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  expect(request.form).toEqual(form);
}

describe("Twilio", () => {
  it("sends through a messaging service: MessagingServiceSid, To with its +, the default text", async () => {
    const { standIn, sender } = await twilio((request) => messageResource(request));
    await sender.send(SMS);
    expectTwilioRequest(onlyRequest(standIn), {
      To: "+15550100000",
      MessagingServiceSid: SERVICE_SID,
      Body: "Your code is 123456",
    });
  });

  it("sends from a sender number when the setting is not a messaging service SID", async () => {
    const { standIn, sender } = await twilio((request) => messageResource(request), {
      messageServiceSid: "+15005550006",
    });
    await sender.send({ kind: "otp", to: "+447700900123", otp: "654321" });
    expectTwilioRequest(onlyRequest(standIn), {
      To: "+447700900123",
      From: "+15005550006",
      Body: "Your code is 654321",
    });
  });

  it("sends WhatsApp through a messaging service: To is whatsapp: and the number", async () => {
    const { standIn, sender } = await twilio((request) => messageResource(request));
    expect(sender.sendsWhatsapp).toBe(true);
    await sender.send({ ...SMS, channel: "whatsapp" });
    expectTwilioRequest(onlyRequest(standIn), {
      To: "whatsapp:+15550100000",
      MessagingServiceSid: SERVICE_SID,
      Body: "Your code is 123456",
    });
  });

  it("sends WhatsApp from a sender number, which becomes whatsapp: and the number too", async () => {
    for (const configured of ["+15005550006", "1 500 555 0006"]) {
      const { standIn, sender } = await twilio((request) => messageResource(request), {
        messageServiceSid: configured,
      });
      await sender.send({ kind: "mfa", to: "+447700900123", otp: "654321", channel: "whatsapp" });
      expectTwilioRequest(onlyRequest(standIn), {
        To: "whatsapp:+447700900123",
        From: "whatsapp:+15005550006",
        Body: "Your code is 654321",
      });
    }
  });

  it("sends WhatsApp's approved template with the code as its variable when SMS_TWILIO_CONTENT_SID is set", async () => {
    const contentSid = "HX0123456789abcdef0123456789abcdef";
    const { standIn, sender } = await twilio((request) => messageResource(request), {
      messageServiceSid: "+15005550006",
      contentSid,
    });
    await sender.send({ ...SMS, channel: "whatsapp" });
    expectTwilioRequest(onlyRequest(standIn), {
      To: "whatsapp:+15550100000",
      From: "whatsapp:+15005550006",
      ContentSid: contentSid,
      ContentVariables: '{"1":"123456"}',
    });
    // An SMS is still text, template or not.
    await sender.send(SMS);
    expect(standIn.requests[1]?.form).toEqual({
      To: "+15550100000",
      From: "+15005550006",
      Body: "Your code is 123456",
    });
  });

  it("uses the custom template", async () => {
    const { standIn, sender } = await twilio((request) => messageResource(request), {
      template: "Latchkey: {{.Code}} is your code. {{ .Other }}",
    });
    await sender.send(SMS);
    expect(onlyRequest(standIn).form.Body).toBe("Latchkey: 123456 is your code. {{ .Other }}");
  });

  it("refuses an invalid number without Twilio's text, code or account in the message", async () => {
    const { sender } = await twilio(() => ({
      status: 400,
      json: {
        code: 21211,
        message: "The 'To' number +15550100000 is not a valid phone number.",
        more_info: "https://www.twilio.com/docs/errors/21211",
        status: 400,
      },
    }));
    const error = await expectRefusal(
      sender.send(SMS),
      ["21211", "valid phone", "+15550100000", "twilio.com", ACCOUNT_SID, AUTH_TOKEN, SERVICE_SID],
      ["HTTP 400", "code 21211", "is not a valid phone number"],
    );
    expect(error.message).toBe("Error sending confirmation OTP to provider");
    expect(error.cause).toBeInstanceOf(SmsProviderError);
    expect(String((error.cause as Error).message)).not.toContain(AUTH_TOKEN);
  });

  it("refuses rejected credentials", async () => {
    const { sender } = await twilio(() => ({
      status: 401,
      json: {
        code: 20003,
        message: "Authenticate",
        more_info: "https://www.twilio.com/docs/errors/20003",
        status: 401,
      },
    }));
    const error = await expectRefusal(sender.send({ ...SMS, kind: "phone_change" }), ["20003", "Authenticate"]);
    expect(error.message).toBe("Error sending phone_change OTP to provider");
  });

  it("refuses a created message whose status is already failed or undelivered", async () => {
    for (const status of ["failed", "undelivered"]) {
      const { sender } = await twilio((request) =>
        messageResource(request, { status, error_code: 30008, error_message: "Unknown error" }),
      );
      await expectRefusal(sender.send(SMS), ["30008", "SM1234567890"], [status, "code 30008"]);
    }
  });

  it("refuses a created message that carries an error code", async () => {
    const { sender } = await twilio((request) => messageResource(request, { error_code: 21610 }));
    await expectRefusal(sender.send(SMS), ["21610"], ["code 21610"]);
  });

  it("leaves Twilio's rate limit and server errors to a retry", async () => {
    const { sender } = await twilio(() => ({
      status: 429,
      json: {
        code: 20429,
        message: "Too Many Requests",
        more_info: "https://www.twilio.com/docs/errors/20429",
        status: 429,
      },
    }));
    const error = await expectTransient(sender.send(SMS), /Twilio failed to take the SMS \(HTTP 429, code 20429\)/);
    expect(error).toBeInstanceOf(SmsProviderError);
    const failing = await twilio(() => ({ status: 503, raw: "<html>Service Unavailable</html>" }));
    await expectTransient(failing.sender.send(SMS), /HTTP 503/);
  });
});
