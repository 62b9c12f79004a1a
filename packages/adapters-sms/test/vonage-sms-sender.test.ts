import { afterEach, describe, expect, it } from "vitest";
import { createVonageSmsSender, SmsProviderError } from "../src/index.ts";
import type { RecordedRequest, Reply } from "./support.ts";
import { closeStandIns, expectRefusal, expectTransient, onlyRequest, SMS, startStandIn } from "./support.ts";

const API_KEY = "abcd1234";
const API_SECRET = "vonage-secret-5678";

afterEach(closeStandIns);

/** Vonage's answer to an SMS request: one entry per part, each with its status. */
function answer(...messages: Record<string, string>[]): Reply {
  return { status: 200, json: { "message-count": String(messages.length), messages } };
}

function accepted(request: RecordedRequest): Record<string, string> {
  return {
    to: request.form.to ?? "",
    "message-id": "0A0000000123ABCD1",
    status: "0",
    "remaining-balance": "3.14159265",
    "message-price": "0.03330000",
    network: "12345",
  };
}

async function vonage(reply: (request: RecordedRequest) => Reply, template?: string) {
  const standIn = await startStandIn(reply);
  const sender = createVonageSmsSender({
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    from: "Latchkey",
    baseUrl: standIn.url,
    template,
  });
  return { standIn, sender };
}

describe("Vonage", () => {
  it("posts the SMS with key and secret in the form and the number without its +; status 0 is success", async () => {
    const { standIn, sender } = await vonage((request) => answer(accepted(request)));
    await sender.send(SMS);
    const request = onlyRequest(standIn);
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/sms/json");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.form).toEqual({
      api_key: API_KEY,
      api_secret: API_SECRET,
      from: "Latchkey",
      to: "15550100000",
      text: "Your code is 123456",
    });
  });

  it("asks for unicode when the custom template is not ASCII", async () => {
    const { standIn, sender } = await vonage((request) => answer(accepted(request)), "Ваш код {{ .Code }}");
    await sender.send(SMS);
    const { form } = onlyRequest(standIn);
    expect(form.text).toBe("Ваш код 123456");
    expect(form.type).toBe("unicode");
  });

  it("leaves status 1 (Throttled) and 5 (Internal Error) to a retry", async () => {
    const throttled = await vonage(() => answer({ status: "1", "error-text": "Throttled" }));
    const error = await expectTransient(throttled.sender.send(SMS), /Vonage did not send the SMS \(HTTP 200, code 1\)/);
    expect(error).toBeInstanceOf(SmsProviderError);
    const internal = await vonage(() => answer({ status: "5", "error-text": "Internal Error" }));
    await expectTransient(internal.sender.send(SMS), /code 5/);
  });

  it("refuses any other status without Vonage's text or status in the message", async () => {
    const cases: [string, string][] = [
      ["3", "Invalid to address"],
      ["4", "Bad Credentials"],
      ["9", "Partner quota exceeded"],
      ["29", "Non White-listed Destination - rejected"],
    ];
    for (const [status, text] of cases) {
      const { sender } = await vonage(() => answer({ status, "error-text": text }));
      await expectRefusal(sender.send(SMS), [status, text, API_KEY, API_SECRET], [`code ${status}`, text]);
    }
  });

  it("counts the SMS as sent once any part went out: the code is on its way, and a retry would send it twice", async () => {
    const { sender, standIn } = await vonage((request) =>
      answer(accepted(request), { status: "6", "error-text": "Unroutable message - rejected" }),
    );
    await expect(sender.send(SMS)).resolves.toBeUndefined();
    expect(standIn.requests).toHaveLength(1);
  });

  it("counts Vonage's JSON without statuses as sent, and leaves a page that is not its JSON and a server error to a retry", async () => {
    const empty = await vonage(() => ({ status: 200, json: { "message-count": "0", messages: [] } }));
    await expect(empty.sender.send(SMS)).resolves.toBeUndefined();
    const portal = await vonage(() => ({ status: 200, raw: "<html>captive portal</html>" }));
    await expectTransient(portal.sender.send(SMS), /without message statuses/);
    const down = await vonage(() => ({ status: 500, raw: "oops" }));
    await expectTransient(down.sender.send(SMS), /HTTP 500/);
  });
});
