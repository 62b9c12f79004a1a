import { describeMailerContract } from "./contracts/mailer-contract.ts";
import { describeSmsSenderContract } from "./contracts/sms-sender-contract.ts";
import { RecordingMailer, RecordingSmsSender } from "./recording-senders.ts";

// The recording doubles stand in for real senders in every domain test: they are held to the same contracts.

describeMailerContract("recording mailer", async () => {
  const mailer = new RecordingMailer();
  return {
    mailer,
    delivered: async () =>
      mailer.sent.map((email, n) => ({ to: email.to, text: JSON.stringify(email), messageId: mailer.messageIds[n]! })),
  };
});

describeSmsSenderContract("recording SMS sender", async () => {
  const sender = new RecordingSmsSender();
  return { sender, delivered: async () => sender.sent.map((sms) => ({ to: sms.to, text: JSON.stringify(sms) })) };
});
