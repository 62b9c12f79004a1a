import { afterEach, describe, expect, it } from "vitest";
import { createTextlocalSmsSender } from "../src/index.ts";
import type { RecordedRequest, Reply } from "./support.ts";
import { closeStandIns, expectRefusal, expectTransient, onlyRequest, SMS, startStandIn } from "./support.ts";

const API_KEY = "tl-api-key-0123456789";

afterEach(closeStandIns);

/** Textlocal's answer to a successful send command. */
function sent(request: RecordedRequest): Reply {
  return {
    status: 200,
    json: {
      balance: 1162,
      batch_id: 123456789,
      cost: 1,
      num_messages: 1,
      message: { num_parts: 1, sender: request.form.sender, content: request.form.message },
      receipt_url: "",
      custom: "",
      messages: [{ id: "1151346216", recipient: Number(request.form.numbers) }],
      status: "success",
    },
  };
}

/** Textlocal's answer to a refused send command: a 200 with status failure. */
function failure(code: number, message: string): Reply {
  return { status: 200, json: { errors: [{ code, message }], status: "failure" } };
}

async function textlocal(reply: (request: RecordedRequest) => Reply, template?: string) {
  const standIn = await startStandIn(reply);
  const sender = createTextlocalSmsSender({ apiKey: API_KEY, sender: "LTCHKY", baseUrl: standIn.url, template });
  return { standIn, sender };
}

describe("Textlocal", () => {
  it("posts the send command with the API key in the form and the number without its +", async () => {
    const { standIn, sender } = await textlocal(sent);
    await sender.send(SMS);
    const request = onlyRequest(standIn);
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/send/");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.form).toEqual({
      apikey: API_KEY,
      sender: "LTCHKY",
      numbers: "15550100000",
      message: "Your code is 123456",
    });
  });

  it("uses the custom template", async () => {
    const { standIn, sender } = await textlocal(sent, "{{ .Code }} is your Latchkey code");
    await sender.send(SMS);
    expect(onlyRequest(standIn).form.message).toBe("123456 is your Latchkey code");
  });

  it("refuses a 200 with status failure without Textlocal's text or code in the message", async () => {
    const { sender } = await textlocal(() => failure(32, "Invalid number format"));
    await expectRefusal(
      sender.send(SMS),
      ["32", "Invalid number", "15550100000", API_KEY],
      ["code 32", "Invalid number format"],
    );
  });

  it("refuses bad credentials and an empty balance", async () => {
    const { sender } = await textlocal(() => failure(3, "Invalid login details"));
    await expectRefusal(sender.send(SMS), ["login", API_KEY], ["code 3"]);
    const broke = await textlocal(() => failure(7, "Insufficient credits"));
    await expectRefusal(broke.sender.send(SMS), ["credits"], ["code 7"]);
  });

  it("leaves server errors and pages that are not its JSON to a retry, and counts its JSON without a status as sent", async () => {
    const { sender } = await textlocal(() => ({ status: 502, raw: "<html>Bad Gateway</html>" }));
    await expectTransient(sender.send(SMS), /Textlocal failed to take the SMS \(HTTP 502\)/);
    const portal = await textlocal(() => ({ status: 200, raw: "<html>captive portal</html>" }));
    await expectTransient(portal.sender.send(SMS), /without a status/);
    const odd = await textlocal(() => ({ status: 200, json: { warnings: [] } }));
    await expect(odd.sender.send(SMS)).resolves.toBeUndefined();
  });
});
