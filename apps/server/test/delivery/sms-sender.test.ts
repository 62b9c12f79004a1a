import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createConfiguredSmsSender } from "../../src/delivery/sms-sender.ts";
import { production } from "../config/support.ts";

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly form: Record<string, string>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A stand-in for every provider at once: each answers its own path with its documented success. */
async function providerStandIn(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const path = req.url ?? "";
      received.push({ path, headers: req.headers, form: Object.fromEntries(new URLSearchParams(body)) });
      const [status, json] = path.endsWith("/Messages.json")
        ? [201, { sid: "SM0123456789abcdef0123456789abcdef", status: "queued" }]
        : path === "/messages"
          ? [
              201,
              { id: "e8077d803532c0b5937c639b60216938", recipients: { totalCount: 1, totalSentCount: 1, items: [] } },
            ]
          : path === "/send/"
            ? [200, { status: "success", messages: [{ id: "1151346216" }] }]
            : [200, { "message-count": "1", messages: [{ status: "0", "message-id": "0A0000000123ABCD1" }] }];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const silent = pino({ level: "silent" });

describe("the configured SMS sender", () => {
  const basic = (request: Received) =>
    Buffer.from((request.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString();
  it.each([
    {
      name: "twilio",
      credentials: {
        AUTH_SMS_TWILIO_ACCOUNT_SID: "AC123",
        AUTH_SMS_TWILIO_AUTH_TOKEN: "tw-token",
        AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: "+15550109999",
      },
      path: "/2010-04-01/Accounts/AC123/Messages.json",
      text: (request: Received) => request.form["Body"],
      authenticated: (request: Received) => basic(request) === "AC123:tw-token",
    },
    {
      name: "messagebird",
      credentials: { AUTH_SMS_MESSAGEBIRD_ACCESS_KEY: "mb-key", AUTH_SMS_MESSAGEBIRD_ORIGINATOR: "Latchkey" },
      path: "/messages",
      text: (request: Received) => request.form["body"],
      authenticated: (request: Received) => request.headers.authorization === "AccessKey mb-key",
    },
    {
      name: "textlocal",
      credentials: { AUTH_SMS_TEXTLOCAL_API_KEY: "tl-key", AUTH_SMS_TEXTLOCAL_SENDER: "LTCHKY" },
      path: "/send/",
      text: (request: Received) => request.form["message"],
      authenticated: (request: Received) => request.form["apikey"] === "tl-key",
    },
    {
      name: "vonage",
      credentials: {
        AUTH_SMS_VONAGE_API_KEY: "vn-key",
        AUTH_SMS_VONAGE_API_SECRET: "vn-secret",
        AUTH_SMS_VONAGE_FROM: "Latchkey",
      },
      path: "/sms/json",
      text: (request: Received) => request.form["text"],
      authenticated: (request: Received) =>
        request.form["api_key"] === "vn-key" && request.form["api_secret"] === "vn-secret",
    },
  ])("sends through $name, with its credentials and SMS_TEMPLATE, to SMS_PROVIDER_API_URL", async (provider) => {
    const standIn = await providerStandIn();
    const config = production({
      AUTH_SMS_PROVIDER: provider.name,
      AUTH_SMS_PROVIDER_API_URL: standIn.url,
      AUTH_SMS_TEMPLATE: "Latchkey code: {{ .Code }}",
      ...provider.credentials,
    });
    await createConfiguredSmsSender(config, silent).send({ kind: "otp", to: "+15550100000", otp: "424242" });
    expect(standIn.received.map((request) => request.path)).toEqual([provider.path]);
    const request = standIn.received[0]!;
    expect(provider.text(request)).toBe("Latchkey code: 424242");
    expect(provider.authenticated(request)).toBe(true);
  });

  it("sends WhatsApp through Twilio with SMS_TWILIO_CONTENT_SID's template, and no other provider takes it", async () => {
    const standIn = await providerStandIn();
    const config = production({
      AUTH_SMS_PROVIDER: "twilio",
      AUTH_SMS_PROVIDER_API_URL: standIn.url,
      AUTH_SMS_TWILIO_ACCOUNT_SID: "AC123",
      AUTH_SMS_TWILIO_AUTH_TOKEN: "tw-token",
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: "+15005550006",
      AUTH_SMS_TWILIO_CONTENT_SID: "HX0123456789abcdef0123456789abcdef",
    });
    const sender = createConfiguredSmsSender(config, silent);
    expect(sender.sendsWhatsapp).toBe(true);
    await sender.send({ kind: "otp", to: "+15550100000", otp: "424242", channel: "whatsapp" });
    expect(standIn.received[0]?.form).toEqual({
      To: "whatsapp:+15550100000",
      From: "whatsapp:+15005550006",
      ContentSid: "HX0123456789abcdef0123456789abcdef",
      ContentVariables: '{"1":"424242"}',
    });
    expect(createConfiguredSmsSender(production({}), silent).sendsWhatsapp).not.toBe(true);
  });

  it("texts a phone factor's challenge with MFA_PHONE_TEMPLATE, every other code with SMS_TEMPLATE", async () => {
    const standIn = await providerStandIn();
    const config = production({
      AUTH_SMS_PROVIDER: "vonage",
      AUTH_SMS_PROVIDER_API_URL: standIn.url,
      AUTH_SMS_TEMPLATE: "Latchkey code: {{ .Code }}",
      AUTH_MFA_PHONE_TEMPLATE: "Latchkey second step: {{ .Code }}",
      AUTH_SMS_VONAGE_API_KEY: "vn-key",
      AUTH_SMS_VONAGE_API_SECRET: "vn-secret",
      AUTH_SMS_VONAGE_FROM: "Latchkey",
    });
    const sender = createConfiguredSmsSender(config, silent);
    await sender.send({ kind: "mfa", to: "+15550100000", otp: "135790" });
    await sender.send({ kind: "otp", to: "+15550100000", otp: "246800" });
    expect(standIn.received.map((request) => request.form["text"])).toEqual([
      "Latchkey second step: 135790",
      "Latchkey code: 246800",
    ]);
  });

  it("refuses to send in production when no provider is set, with GoTrue's error, and logs no code", async () => {
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    const refused = await createConfiguredSmsSender(production({}), log)
      .send({ kind: "otp", to: "+15550100000", otp: "424242" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ code: "unexpected_failure", message: "Unable to get SMS provider" });
    expect(lines.join("")).not.toContain("424242");
  });
});
