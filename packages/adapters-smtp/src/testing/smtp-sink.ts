import type { AddressInfo } from "node:net";
import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

/** One email as it arrived, parsed. */
export interface ReceivedMail {
  readonly to: string;
  readonly from: { readonly name: string; readonly address: string };
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The mail's action link: the first link of its HTML part (else of its text), if any. */
  readonly link: string | undefined;
  /** The first run of 6 to 10 digits in the text part, if any: the code. */
  readonly code: string | undefined;
  readonly parsed: ParsedMail;
  /** Date.now() when its DATA was accepted. */
  readonly receivedAt: number;
}

export interface SmtpSinkOptions {
  /** Reply to RCPT TO with this error. */
  readonly rejectRcpt?: { readonly message: string; readonly responseCode: number };
  /** Reply to the end of DATA with this error. */
  readonly rejectData?: { readonly message: string; readonly responseCode: number };
  /**
   * Never greet a connection opened while this returns true: a mail server that accepts connections and then hangs.
   * Asked at each connection, so a test can switch it on and off.
   */
  readonly stallGreeting?: () => boolean;
  /**
   * Never answer the end of DATA of a message this returns true for (given its recipients): a recipient whose mail
   * server hangs. Asked for each message. The connection stays open until the client gives up or the sink closes.
   */
  readonly stallData?: (recipients: readonly string[]) => boolean;
  /** Wait this many milliseconds before answering the end of each DATA: a slow mail server. */
  readonly dataDelayMs?: number;
}

/** A real SMTP server in this process that keeps and parses what arrives. */
export interface SmtpSink {
  readonly port: number;
  readonly messages: readonly ReceivedMail[];
  readonly auths: readonly { readonly username: string | undefined; readonly password: string | undefined }[];
  /** Resolves once `count` messages have arrived in all. */
  received(count: number): Promise<void>;
  /** The first mail to `to` (that `matches`) arriving from now or already there; fails after `timeoutMs`. */
  waitFor(to: string, matches?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Every mail to `to` so far. */
  to(address: string): ReceivedMail[];
  /** Stops listening: connections are refused, as from a mail server that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const firstAddress = (field: AddressObject | AddressObject[] | undefined) => {
  const value = (Array.isArray(field) ? field[0] : field)?.value[0];
  return { name: value?.name ?? "", address: value?.address ?? "" };
};

function received(parsed: ParsedMail, receivedAt: number): ReceivedMail {
  const text = parsed.text ?? "";
  const html = typeof parsed.html === "string" ? parsed.html : "";
  const href = /href="([^"]+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&");
  return {
    to: firstAddress(parsed.to).address,
    from: firstAddress(parsed.from),
    subject: parsed.subject ?? "",
    text,
    html,
    link: href ?? /https?:\/\/[^\s<>"]+/.exec(text)?.[0],
    code: /\b\d{6,10}\b/.exec(text)?.[0],
    parsed,
    receivedAt,
  };
}

/** What the sink has kept, and who waits for the next mail: shared by its SMTP servers (one per `start`). */
interface Inbox {
  readonly messages: ReceivedMail[];
  readonly auths: { username: string | undefined; password: string | undefined }[];
  /** Each called once, at the next mail's arrival. */
  readonly waiters: (() => void)[];
}

/** Wakes every waiter; those that wait again wait for the mail after this one. */
function wakeAll(inbox: Inbox): void {
  const woken = inbox.waiters.splice(0);
  for (const wake of woken) wake();
}

/** The SMTP error `reject` describes, for a callback of smtp-server's. */
const smtpError = (reject: { readonly message: string; readonly responseCode: number }) =>
  Object.assign(new Error(reject.message), { responseCode: reject.responseCode });

/** Parses a message's DATA and keeps it, or stalls, waits or rejects as `options` say. */
function dataHandler(options: SmtpSinkOptions, inbox: Inbox): SMTPServerOptions["onData"] {
  return (stream, session, callback) => {
    simpleParser(stream).then(
      async (mail) => {
        if (options.stallData?.(session.envelope.rcptTo.map((rcpt) => rcpt.address))) return; // never answered
        if (options.dataDelayMs) await new Promise((resolve) => setTimeout(resolve, options.dataDelayMs));
        const reject = options.rejectData;
        if (reject) return callback(smtpError(reject));
        inbox.messages.push(received(mail, Date.now()));
        wakeAll(inbox);
        callback();
      },
      (error: Error) => callback(error),
    );
  };
}

/** A new SMTP server (not yet listening) that answers as `options` say and keeps what arrives in `inbox`. */
function createSmtpServer(options: SmtpSinkOptions, inbox: Inbox): SMTPServer {
  const created = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    closeTimeout: 200,
    logger: false,
    onConnect(_session, callback) {
      if (options.stallGreeting?.()) return; // no callback: no greeting
      callback();
    },
    onAuth(auth, _session, callback) {
      inbox.auths.push({ username: auth.username, password: auth.password ?? undefined });
      callback(null, { user: auth.username ?? "" });
    },
    onRcptTo(_address, _session, callback) {
      const reject = options.rejectRcpt;
      callback(reject ? smtpError(reject) : null);
    },
    onData: dataHandler(options, inbox),
  });
  // A client that dies mid-session (a process killed by a test) resets its connection: no failure of the sink's,
  // and without a listener the server's "error" event would be thrown in the test process.
  created.on("error", () => undefined);
  return created;
}

/** Listens on loopback at `port` (0: any free port); rejects if it cannot. */
function listen(server: SMTPServer, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

/** Resolves once `count` messages have arrived in all. */
async function untilReceived(inbox: Inbox, count: number): Promise<void> {
  while (inbox.messages.length < count) await new Promise<void>((resolve) => inbox.waiters.push(resolve));
}

/** The first mail to `to` that `matches`, already there or arriving within `timeoutMs`. */
async function waitForMail(
  inbox: Inbox,
  to: string,
  matches: (mail: ReceivedMail) => boolean,
  timeoutMs: number,
): Promise<ReceivedMail> {
  const deadline = Date.now() + timeoutMs;
  const wanted = (mail: ReceivedMail) => mail.to.toLowerCase() === to.toLowerCase() && matches(mail);
  for (;;) {
    const found = inbox.messages.find(wanted);
    if (found) return found;
    const left = deadline - Date.now();
    if (left <= 0)
      throw new Error(`no mail to ${to} arrived within ${timeoutMs} ms (${inbox.messages.length} arrived in all)`);
    // Woken by the next mail, or by the deadline.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      inbox.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** Starts an SMTP server on loopback (no TLS; any or no credentials accepted) that keeps what it receives. */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const inbox: Inbox = { messages: [], auths: [], waiters: [] };
  let server = createSmtpServer(options, inbox);
  await listen(server, 0);
  const port = (server.server.address() as AddressInfo).port;
  let listening = true;
  const close = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    port,
    messages: inbox.messages,
    auths: inbox.auths,
    received: (count) => untilReceived(inbox, count),
    waitFor: (to, matches = () => true, timeoutMs = 10_000) => waitForMail(inbox, to, matches, timeoutMs),
    to: (address) => inbox.messages.filter((mail) => mail.to.toLowerCase() === address.toLowerCase()),
    stop: close,
    async start() {
      if (listening) return;
      // A new server on the same port, keeping into the same inbox.
      server = createSmtpServer(options, inbox);
      await listen(server, port);
      listening = true;
    },
    close,
  };
}
