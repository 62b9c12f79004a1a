import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One SMS Twilio took (answered 201), as the server asked for it. */
interface ReceivedSms {
  /** E.164, with the `+`, as the request's `To` gave it (without its `whatsapp:`). */
  readonly to: string;
  /** `whatsapp` when the request's `To` was `whatsapp:` and the number: Twilio then sends it by WhatsApp. */
  readonly channel: "sms" | "whatsapp";
  readonly body: string;
  /** The first run of 6 to 10 digits in the body: the code. */
  readonly code: string | undefined;
  /** The message SID the stand-in answered with. */
  readonly sid: string;
}

/** A well-formed request to the Messages API and the HTTP status it was answered with (201, 400 refused, 503). */
interface SmsAttempt {
  readonly to: string;
  readonly status: number;
}

/**
 * A stand-in for Twilio's Programmable Messaging API: it checks every request as Twilio would (method, path with
 * the account SID, Basic credentials, form encoding, exactly the fields a messaging-service send has, by SMS or
 * WhatsApp), keeps what it accepts, and can refuse a number or be unavailable. A request Twilio would not accept is
 * recorded in `problems` and answered 400; tests assert that none were recorded.
 */
export interface SmsInbox {
  readonly url: string;
  readonly accountSid: string;
  readonly authToken: string;
  readonly messagingServiceSid: string;
  /** The server settings that send through this stand-in with the real Twilio adapter. */
  readonly serverEnv: Readonly<Record<string, string>>;
  /** Every SMS accepted so far, in order. */
  readonly messages: readonly ReceivedSms[];
  /** Every well-formed request so far, accepted or not, in order. */
  readonly attempts: readonly SmsAttempt[];
  /** What was wrong with each request Twilio would not have accepted. */
  readonly problems: readonly string[];
  /** The first SMS to `phone` (that `matches`) arriving from now or already there; fails after `timeoutMs`. */
  waitFor(phone: string, matches?: (sms: ReceivedSms) => boolean, timeoutMs?: number): Promise<ReceivedSms>;
  /** Every SMS accepted for `phone` so far. */
  to(phone: string): ReceivedSms[];
  /** Answers requests for `phone` with Twilio's 400 for an invalid 'To' number (code 21211) until `accept`. */
  refuse(phone: string): void;
  accept(phone: string): void;
  /** Answers every request with 503 until the function returned is called. */
  unavailable(): () => void;
  close(): Promise<void>;
}

const E164 = /^\+[1-9]\d{1,14}$/;
/** Twilio's limit on a message body. */
const MAX_BODY_LENGTH = 1600;

function twilioError(code: number, message: string, status: number) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function answer(response: ServerResponse, status: number, json: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(json));
}

/** Starts the stand-in on a random loopback port, with fresh credentials. */
export async function startSmsInbox(): Promise<SmsInbox> {
  const ACCOUNT_SID = `AC${randomBytes(16).toString("hex")}`;
  const AUTH_TOKEN = randomBytes(16).toString("hex");
  const MESSAGING_SERVICE_SID = `MG${randomBytes(16).toString("hex")}`;
  const messages: ReceivedSms[] = [];
  const attempts: SmsAttempt[] = [];
  const problems: string[] = [];
  const refused = new Set<string>();
  let outages = 0;
  let waiters: (() => void)[] = [];
  const wakeAll = () => {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };
  const messagesPath = `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`;

  /** What Twilio would object to in this request; empty when it is a correct messaging-service send. */
  function check(request: IncomingMessage, text: string): { issues: string[]; form: Record<string, string> } {
    const issues: string[] = [];
    if (request.method !== "POST") issues.push(`method ${request.method}, expected POST`);
    if (request.url !== messagesPath) issues.push(`path ${request.url}, expected ${messagesPath}`);

    const authorization = request.headers.authorization ?? "";
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization);
    const credentials = basic ? Buffer.from(basic[1]!, "base64").toString("utf8") : undefined;
    if (credentials !== `${ACCOUNT_SID}:${AUTH_TOKEN}`) {
      issues.push(
        basic
          ? `Basic credentials ${JSON.stringify(credentials)}, expected the account SID and token`
          : "no Basic authorization",
      );
    }
    const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (contentType !== "application/x-www-form-urlencoded")
      issues.push(`content type ${JSON.stringify(request.headers["content-type"])}`);

    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(text)) {
      if (key in form) issues.push(`field ${key} given twice`);
      form[key] = value;
    }
    const keys = Object.keys(form).sort();
    if (keys.join(",") !== "Body,MessagingServiceSid,To")
      issues.push(`fields ${keys.join(",")}, expected Body,MessagingServiceSid,To`);
    if (form["To"] !== undefined && !E164.test(form["To"].replace(/^whatsapp:/, "")))
      issues.push(`To ${JSON.stringify(form["To"])} is not E.164 with its +, or whatsapp: and that`);
    if (form["MessagingServiceSid"] !== undefined && form["MessagingServiceSid"] !== MESSAGING_SERVICE_SID) {
      issues.push(`MessagingServiceSid ${form["MessagingServiceSid"]}, expected ${MESSAGING_SERVICE_SID}`);
    }
    const body = form["Body"];
    if (body !== undefined && (body.trim() === "" || body.length > MAX_BODY_LENGTH))
      issues.push(`Body of ${body.length} characters`);
    return { issues, form };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const { issues, form } = check(request, text);
    if (issues.length > 0) {
      problems.push(`${request.method} ${request.url}: ${issues.join("; ")}`);
      answer(response, 400, twilioError(21601, `Request not as Twilio expects: ${issues.join("; ")}`, 400));
      return;
    }
    const to = form["To"]!.replace(/^whatsapp:/, "");
    const channel = form["To"]!.startsWith("whatsapp:") ? "whatsapp" : "sms";
    const body = form["Body"]!;
    if (outages > 0) {
      attempts.push({ to, status: 503 });
      answer(response, 503, twilioError(20503, "Service Unavailable", 503));
      return;
    }
    if (refused.has(to)) {
      attempts.push({ to, status: 400 });
      answer(response, 400, twilioError(21211, `The 'To' number ${to} is not a valid phone number.`, 400));
      return;
    }
    const sid = `SM${randomBytes(16).toString("hex")}`;
    attempts.push({ to, status: 201 });
    messages.push({ to, channel, body, code: /\b\d{6,10}\b/.exec(body)?.[0], sid });
    wakeAll();
    // Twilio's message resource; a send through a messaging service starts out "accepted".
    answer(response, 201, {
      account_sid: ACCOUNT_SID,
      api_version: "2010-04-01",
      body,
      date_created: new Date().toUTCString(),
      date_sent: null,
      date_updated: new Date().toUTCString(),
      direction: "outbound-api",
      error_code: null,
      error_message: null,
      from: null,
      messaging_service_sid: MESSAGING_SERVICE_SID,
      num_media: "0",
      num_segments: "0",
      price: null,
      price_unit: null,
      sid,
      status: "accepted",
      subresource_uris: { media: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}/Media.json` },
      to: form["To"],
      uri: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sid}.json`,
    });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      problems.push(`${request.method} ${request.url}: the stand-in failed: ${String(error)}`);
      if (!response.headersSent) answer(response, 400, twilioError(21601, "stand-in failure", 400));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    messagingServiceSid: MESSAGING_SERVICE_SID,
    serverEnv: {
      AUTH_SMS_PROVIDER: "twilio",
      AUTH_SMS_TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      AUTH_SMS_TWILIO_AUTH_TOKEN: AUTH_TOKEN,
      AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID: MESSAGING_SERVICE_SID,
      AUTH_SMS_PROVIDER_API_URL: url,
    },
    messages,
    attempts,
    problems,
    async waitFor(phone, matches = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      const wanted = (sms: ReceivedSms) => sms.to === phone && matches(sms);
      for (;;) {
        const found = messages.find(wanted);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no SMS to ${phone} arrived within ${timeoutMs} ms (${messages.length} arrived in all)`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    to: (phone) => messages.filter((sms) => sms.to === phone),
    refuse: (phone) => void refused.add(phone),
    accept: (phone) => void refused.delete(phone),
    unavailable() {
      outages++;
      let restored = false;
      return () => {
        if (!restored) outages--;
        restored = true;
      };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
