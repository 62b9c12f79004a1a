import type { Socket } from "node:net";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type Mail from "nodemailer/lib/mailer";
import SMTPConnection from "nodemailer/lib/smtp-connection/index.js";

/** To resolve the host and open the TCP connection (TLS included on port 465). */
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
/** For the server's greeting once connected. */
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
/**
 * For the reply to each command (EHLO, STARTTLS, AUTH, MAIL, RCPT, DATA and the reply to the message itself): the
 * longest silence a connection may keep.
 */
export const SMTP_COMMAND_TIMEOUT_MS = 15_000;
/**
 * One whole attempt, from connecting to the server accepting the message: past it the connection is cut and the
 * attempt fails. It may outlast the outbox's lease (OUTBOX_LEASE_SECONDS): the worker renews that while it runs.
 */
export const SMTP_ATTEMPT_TIMEOUT_MS = 30_000;

export interface SmtpServer {
  readonly host: string;
  readonly port: number;
  readonly auth: { readonly user: string; readonly pass: string } | undefined;
  readonly connectionTimeoutMs: number;
  readonly greetingTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly attemptTimeoutMs: number;
}

type Work = (connection: SMTPConnection, done: (error?: Error | null) => void) => void;

/** Sends one message on a connection of its own; resolves once the server has accepted it. */
export function sendMessage(server: SmtpServer, mail: Mail.Options, cut: AbortSignal): Promise<void> {
  const message = new MailComposer(mail).compile();
  return exchange(server, cut, (connection, done) =>
    connection.send(message.getEnvelope(), message.createReadStream(), (error) => done(error)),
  );
}

/** Connects and authenticates, then hangs up: checks the settings. */
export function checkServer(server: SmtpServer, cut: AbortSignal): Promise<void> {
  return exchange(server, cut, (_connection, done) => done());
}

/**
 * Runs `work` on a fresh connection once it is greeted, upgraded to TLS when the server offers it (a failed upgrade
 * fails), and authenticated when the server takes credentials; ends it by the attempt's deadline, or at once when
 * `cut` fires. Nothing is shared between attempts, so a stuck one holds nothing another needs.
 */
function exchange(server: SmtpServer, cut: AbortSignal, work: Work): Promise<void> {
  return new Promise((resolve, reject) => {
    const connection = new SMTPConnection({
      host: server.host,
      port: server.port,
      // Implicit TLS on 465; elsewhere STARTTLS whenever the server offers it.
      secure: server.port === 465,
      connectionTimeout: server.connectionTimeoutMs,
      dnsTimeout: server.connectionTimeoutMs,
      greetingTimeout: server.greetingTimeoutMs,
      socketTimeout: server.commandTimeoutMs,
      logger: false,
      debug: false,
    });
    let settled = false;
    const finish = (error?: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      cut.removeEventListener("abort", onCut);
      connection.close();
      if (!error) return resolve();
      // A connection given up on is not left to linger, whatever stage it was at (false before it opens).
      const socket = connection._socket as Socket | false | undefined;
      if (socket) socket.destroy();
      reject(error);
    };
    const failure = (message: string, code: string) => Object.assign(new Error(message), { code });
    const onCut = () => finish(failure("the mailer was closed", "ECANCELED"));
    const deadline = setTimeout(
      () => finish(failure(`no answer within the attempt's ${server.attemptTimeoutMs} ms`, "ETIMEDOUT")),
      server.attemptTimeoutMs,
    );
    if (cut.aborted) return onCut();
    cut.addEventListener("abort", onCut, { once: true });
    // Kept for the connection's whole life: an error after the outcome must not go unhandled.
    connection.on("error", finish);
    // An error saying why may follow the close: wait for it briefly, as nodemailer's own transport does.
    connection.on("end", () =>
      setTimeout(() => finish(failure("the server closed the connection", "ECONNECTION")), 100),
    );
    connection.connect(() => {
      if (settled) return;
      // As nodemailer's transport: credentials only for a server that offers AUTH (typed nowhere, set by EHLO).
      const offersAuth = (connection as SMTPConnection & { allowsAuth?: boolean }).allowsAuth === true;
      if (!server.auth || !offersAuth) return work(connection, finish);
      connection.login(server.auth, (error) => (error ? finish(error) : work(connection, finish)));
    });
  });
}
