import { type DeliveredMail, describeMailerContract } from "@latchkey/domain/testing";
import { createLogMailer, createSmtpMailer, type LogEntry, type MailerOptions } from "../src/index.ts";
import { startSmtpSink } from "../src/testing/index.ts";

const options: MailerOptions = { externalUrl: "https://auth.example.com/auth/v1", siteUrl: "https://app.example.com" };
const smtp = { host: "127.0.0.1", adminEmail: "no-reply@latchkey.example", connectionTimeoutMs: 2_000 };

describeMailerContract("SMTP", async () => {
  const sink = await startSmtpSink();
  const down = await startSmtpSink();
  await down.stop();
  const mailer = createSmtpMailer({ ...options, ...smtp, port: sink.port });
  const unreachable = createSmtpMailer({ ...options, ...smtp, port: down.port });
  return {
    mailer,
    unreachable,
    delivered: async (count) => {
      await sink.received(count);
      return sink.messages.map(
        (mail): DeliveredMail => ({
          to: mail.to,
          text: `${mail.subject}\n${mail.text}`,
          messageId: mail.parsed.messageId ?? "",
        }),
      );
    },
    close: async () => {
      await Promise.all([mailer.close(), unreachable.close()]);
      await Promise.all([sink.close(), down.close()]);
    },
  };
});

describeMailerContract("log", async () => {
  const written: LogEntry[] = [];
  return {
    mailer: createLogMailer({ ...options, write: (entry) => written.push(entry) }),
    delivered: async () =>
      written.map((entry) => ({ to: entry.to, text: `${entry.subject}\n${entry.text}`, messageId: entry.messageId })),
  };
});
