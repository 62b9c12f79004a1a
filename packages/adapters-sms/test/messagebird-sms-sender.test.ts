import { afterEach, describe, expect, it } from "vitest";
import { createMessageBirdSmsSender } from "../src/index.ts";
import type { RecordedRequest, Reply } from "./support.ts";
import { closeStandIns, expectRefusal, expectTransient, onlyRequest, SMS, startStandIn } from "./support.ts";

const ACCESS_KEY = "live_mb0123456789abcdef";

afterEach(closeStandIns);

/** MessageBird's message object, as its Messages API answers a created message. */
function messageObject(request: RecordedRequest, totalSentCount = 1): Reply {
  return {
    status: 201,
    json: {
      id: "e8077d803532c0b5937c639b60216938",
      href: "https://rest.messagebird.com/messages/e8077d803532c0b5937c639b60216938",
      direction: "mt",
      type: "sms",
      originator: request.form.originator,
      body: request.form.body,
      reference: null,
      validity: null,
      gateway: 10,
      typeDetails: {},
      datacoding: "unicode",
      mclass: 1,
      scheduledDatetime: null,
      createdDatetime: "2016-05-03T14:26:57+00:00",
      recipients: {
        totalCount: 1,
        totalSentCount,
        totalDeliveredCount: 0,
        totalDeliveryFailedCount: 0,
        items: [
          { recipient: Number(request.form.recipients), status: "sent", statusDatetime: "2016-05-03T14:26:57+00:00" },
        ],
      },
    },
  };
}

async function messagebird(reply: (request: RecordedRequest) => Reply, template?: string) {
  const standIn = await startStandIn(reply);
  const sender = createMessageBirdSmsSender({
    accessKey: ACCESS_KEY,
    originator: "Latchkey",
    baseUrl: standIn.url,
    template,
  });
  return { standIn, sender };
}

describe("MessageBird", () => {
  it("posts the message with the access key, the number without its + and unicode data coding", async () => {
    const { standIn, sender } = await messagebird((request) => messageObject(request));
    await sender.send(SMS);
    const request = onlyRequest(standIn);
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/messages");
    expect(request.headers.authorization).toBe(`AccessKey ${ACCESS_KEY}`);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.form).toEqual({
      originator: "Latchkey",
      body: "Your code is 123456",
      recipients: "15550100000",
      type: "sms",
      datacoding: "unicode",
    });
  });

  it("uses the custom template", async () => {
    const { standIn, sender } = await messagebird((request) => messageObject(request), "Código: {{ .Code }}");
    await sender.send(SMS);
    expect(onlyRequest(standIn).form.body).toBe("Código: 123456");
  });

  it("refuses a bad number without MessageBird's text, code or parameter in the message", async () => {
    const { sender } = await messagebird(() => ({
      status: 422,
      json: { errors: [{ code: 9, description: "no (correct) recipients found", parameter: "recipient" }] },
    }));
    await expectRefusal(
      sender.send(SMS),
      ["9", "recipients found", "recipient", "15550100000", ACCESS_KEY],
      ["HTTP 422", "code 9", "no (correct) recipients found"],
    );
  });

  it("refuses a rejected access key and an empty balance", async () => {
    const { sender } = await messagebird(() => ({
      status: 401,
      json: {
        errors: [{ code: 2, description: "Request not allowed (incorrect access_key)", parameter: "access_key" }],
      },
    }));
    await expectRefusal(sender.send(SMS), ["access_key", ACCESS_KEY], ["HTTP 401", "code 2"]);
    const broke = await messagebird(() => ({
      status: 402,
      json: { errors: [{ code: 25, description: "Not enough balance", parameter: null }] },
    }));
    await expectRefusal(broke.sender.send(SMS), ["balance"], ["code 25"]);
  });

  it("refuses a created message that went to no recipient", async () => {
    const { sender } = await messagebird((request) => messageObject(request, 0));
    await expectRefusal(sender.send(SMS), ["e8077d80"], ["to no recipient"]);
  });

  it("leaves MessageBird's server errors to a retry", async () => {
    const { sender } = await messagebird(() => ({
      status: 500,
      json: { errors: [{ code: 99, description: "Internal error", parameter: null }] },
    }));
    await expectTransient(sender.send(SMS), /MessageBird failed to take the SMS \(HTTP 500, code 99\)/);
  });
});

describe("MessageBird answers it cannot fully read", () => {
  it("count its JSON without a message object as sent, and leave a page that is not its JSON to a retry", async () => {
    const odd = await messagebird(() => ({ status: 201, json: { id: "e8077d803532c0b5937c639b60216938" } }));
    await expect(odd.sender.send(SMS)).resolves.toBeUndefined();
    const portal = await messagebird(() => ({ status: 200, raw: "<html>captive portal</html>" }));
    await expectTransient(portal.sender.send(SMS), /without a message object/);
  });
});
