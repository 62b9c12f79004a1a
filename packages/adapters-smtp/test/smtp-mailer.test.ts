import { afterEach, describe, expect, it } from "vitest";
import type { SmtpMailer, SmtpMailerOptions } from "../src/index.ts";
import { createSmtpMailer, EMAIL_KINDS, SmtpDeliveryError } from "../src/index.ts";
import { type SmtpSinkOptions, startSmtpSink } from "../src/testing/index.ts";
import {
  CODE,
  EMAILS,
  emailOf,
  firstAddress,
  hrefOf,
  REDIRECT_TO,
  startSilentServer,
  startSlowSmtpServer,
  TOKEN,
} from "./support.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function mailer(port: number, overrides: Partial<SmtpMailerOptions> = {}): SmtpMailer {
  const created = createSmtpMailer({
    host: "127.0.0.1",
    port,
    adminEmail: "no-reply@latchkey.example",
    senderName: 'Latchkey, "Auth"',
    externalUrl: "https://auth.example.com/auth/v1",
    siteUrl: "https://app.example.com",
    ...overrides,
  });
  cleanups.push(() => created.close());
  return created;
}

/** The shared sink, with the parsed messages these tests inspect header by header. */
async function smtpServer(options: SmtpSinkOptions = {}) {
  const sink = await startSmtpSink(options);
  cleanups.push(() => sink.close());
  return {
    port: sink.port,
    auths: sink.auths,
    received: sink.received,
    get messages() {
      return sink.messages.map((mail) => mail.parsed);
    },
  };
}

describe("delivery", () => {
  it("delivers every kind with From, To, Subject, both parts and the right link", async () => {
    const server = await smtpServer();
    const smtp = mailer(server.port, { urlPaths: { recovery: "/reset" } });
    for (const [n, email] of EMAILS.entries()) await smtp.send(email, { messageId: `mail-${n}` });
    await server.received(EMAILS.length);

    EMAILS.forEach((email, index) => {
      const mail = server.messages[index];
      if (!mail) throw new Error(`missing ${email.kind}`);
      expect(firstAddress(mail.from)).toEqual({ name: 'Latchkey, "Auth"', address: "no-reply@latchkey.example" });
      expect(firstAddress(mail.to).address).toBe(email.to);
      expect(mail.subject).toBe(EMAIL_KINDS[email.kind].subject.replace("{{ .Token }}", CODE));
      expect(mail.html).toEqual(expect.stringContaining("<html"));
      expect(mail.text).toEqual(expect.stringContaining("\n"));
      if (!("linkToken" in email)) return;
      const link = new URL(hrefOf(mail.html || ""));
      expect(link.origin).toBe("https://auth.example.com");
      const path = email.kind === "recovery" || email.kind === "magic_link" ? "/reset" : "/verify";
      expect(link.pathname).toBe(`/auth/v1${path}`);
      expect(link.searchParams.get("token")).toBe(TOKEN);
      expect(link.searchParams.get("type")).toBe(email.linkType);
      expect(link.searchParams.get("redirect_to")).toBe(REDIRECT_TO);
      expect(mail.text).toContain(link.toString());
      expect(mail.text).toContain(CODE);
    });
  });

  it("uses configured subjects with the code", async () => {
    const server = await smtpServer();
    const smtp = mailer(server.port, { subjects: { reauthentication: "Code: {{ .Token }}", confirmation: "Welcome" } });
    await smtp.send(emailOf("reauthentication"), { messageId: "mail-2" });
    await smtp.send(emailOf("confirmation"), { messageId: "mail-3" });
    await server.received(2);
    expect(server.messages.map((mail) => mail.subject)).toEqual([`Code: ${CODE}`, "Welcome"]);
  });

  it("defaults the sender name to the admin email", async () => {
    const server = await smtpServer();
    await mailer(server.port, { senderName: undefined }).send(emailOf("password_changed"), { messageId: "mail-4" });
    await server.received(1);
    // Asserted on the raw header: mailparser drops a display name that looks like an address.
    const from = server.messages[0]?.headerLines.find((header) => header.key === "from");
    expect(from?.line).toBe('From: "no-reply@latchkey.example" <no-reply@latchkey.example>');
  });

  it("authenticates with the configured credentials, and only then", async () => {
    const server = await smtpServer();
    await mailer(server.port).send(emailOf("password_changed"), { messageId: "mail-5" });
    expect(server.auths).toEqual([]);
    await mailer(server.port, { user: "relay-user", pass: "s3cret pass" }).send(emailOf("password_changed"), {
      messageId: "mail-6",
    });
    await server.received(2);
    expect(server.auths).toEqual([{ username: "relay-user", password: "s3cret pass" }]);
  });

  it("gives each mail the Message-ID of its message id, at the admin address's domain, the same when sent again", async () => {
    const server = await smtpServer();
    const smtp = mailer(server.port);
    const id = "0b8f3c1e-5a2d-4f7b-9c61-2e4d8a7f1b30";
    await smtp.send(emailOf("confirmation"), { messageId: id });
    await smtp.send(emailOf("confirmation"), { messageId: id });
    await smtp.send(emailOf("confirmation"), { messageId: "another-message" });
    await server.received(3);
    expect(server.messages.map((mail) => mail.messageId)).toEqual([
      `<${id}@latchkey.example>`,
      `<${id}@latchkey.example>`,
      "<another-message@latchkey.example>",
    ]);
  });

  it("refuses a message id that a Message-ID could not carry as it is", async () => {
    const server = await smtpServer();
    await expect(mailer(server.port).send(emailOf("confirmation"), { messageId: "a b>" })).rejects.toThrow(
      "not usable in a Message-ID",
    );
  });

  it("verify() checks the connection", async () => {
    const server = await smtpServer();
    await expect(mailer(server.port).verify()).resolves.toBeUndefined();
  });
});

describe("failures", () => {
  it("throws when the server refuses the recipient, without the link", async () => {
    const server = await smtpServer({ rejectRcpt: { message: "Mailbox unavailable", responseCode: 550 } });
    const error = await mailer(server.port)
      .send(emailOf("recovery"), { messageId: "mail-7" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SmtpDeliveryError);
    expect(error).toMatchObject({ code: "EENVELOPE", responseCode: 550 });
    expect(String((error as Error).message)).toContain("Mailbox unavailable");
    expect(JSON.stringify({ message: (error as Error).message, stack: (error as Error).stack })).not.toMatch(
      new RegExp(`${TOKEN}|${CODE}|verify\\?`),
    );
  });

  it("cuts the link, token and code out of a reply that echoes them", async () => {
    const server = await smtpServer({ rejectData: { message: `spam: ${TOKEN} ${CODE}`, responseCode: 554 } });
    const error = await mailer(server.port)
      .send(emailOf("magic_link"), { messageId: "mail-8" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SmtpDeliveryError);
    expect((error as Error).message).toContain("spam: [redacted] [redacted]");
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it("fails within the timeouts when the server never greets", async () => {
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());
    const smtp = mailer(silent.port, { connectionTimeoutMs: 300, greetingTimeoutMs: 300, commandTimeoutMs: 500 });
    const started = Date.now();
    await expect(smtp.send(emailOf("confirmation"), { messageId: "mail-9" })).rejects.toBeInstanceOf(SmtpDeliveryError);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("fails within the timeouts when the server greets and then goes silent", async () => {
    const silent = await startSilentServer("220 mute.example ESMTP");
    cleanups.push(() => silent.close());
    const smtp = mailer(silent.port, { connectionTimeoutMs: 300, greetingTimeoutMs: 300, commandTimeoutMs: 500 });
    const started = Date.now();
    const error = await smtp.send(emailOf("confirmation"), { messageId: "mail-10" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SmtpDeliveryError);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("fails when nothing listens", async () => {
    const silent = await startSilentServer();
    await silent.close();
    await expect(
      mailer(silent.port, { connectionTimeoutMs: 300 }).send(emailOf("invite"), { messageId: "mail-11" }),
    ).rejects.toMatchObject({
      code: "ESOCKET",
    });
  });
});

describe("bounds", () => {
  const stuckTo = emailOf("confirmation").to;
  /** Fails the test if `promise` settles within `ms`. */
  const pendingAfter = async (promise: Promise<unknown>, ms: number) => {
    const outcome = await Promise.race([
      promise.then(
        () => "delivered",
        () => "failed",
      ),
      new Promise((resolve) => setTimeout(() => resolve("pending"), ms)),
    ]);
    expect(outcome).toBe("pending");
  };

  it("fails at the command timeout when the server never answers the message itself", async () => {
    const server = await smtpServer({ stallData: () => true });
    const smtp = mailer(server.port, { commandTimeoutMs: 400 });
    const started = Date.now();
    const error = await smtp.send(emailOf("confirmation"), { messageId: "stuck" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SmtpDeliveryError);
    expect(error).toMatchObject({ code: "ETIMEDOUT" });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.messages).toEqual([]);
  });

  it("fails at the attempt's deadline when every reply comes in time but the whole exchange does not", async () => {
    const slow = await startSlowSmtpServer(250);
    cleanups.push(() => slow.close());
    const smtp = mailer(slow.port, { commandTimeoutMs: 2_000, attemptTimeoutMs: 800 });
    const started = Date.now();
    const error = await smtp.send(emailOf("confirmation"), { messageId: "slow" }).catch((caught: unknown) => caught);
    const took = Date.now() - started;
    expect(error).toMatchObject({ code: "ETIMEDOUT" });
    expect((error as Error).message).toContain("800 ms");
    expect(took).toBeGreaterThanOrEqual(750);
    expect(took).toBeLessThan(3_000);
    // Each reply on its own is in time: given long enough, the same exchange succeeds.
    await expect(
      mailer(slow.port, { attemptTimeoutMs: 10_000 }).send(emailOf("confirmation"), { messageId: "slow" }),
    ).resolves.toBeUndefined();
  });

  it("lets other mail through while one mail's server never answers it", async () => {
    const server = await smtpServer({ stallData: (recipients) => recipients.includes(stuckTo) });
    // The defaults: the stuck mail is held for the whole test.
    const smtp = mailer(server.port);
    const stuck = smtp.send(emailOf("confirmation"), { messageId: "stuck" });
    stuck.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const others = Array.from({ length: 12 }, (_, n) => ({
      ...emailOf("password_changed"),
      to: `other${n}@example.com`,
    }));
    await Promise.all(others.map((email, n) => smtp.send(email, { messageId: `other-${n}` })));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.messages.map((mail) => firstAddress(mail.to).address).sort()).toEqual(
      others.map((email) => email.to).sort(),
    );
    await pendingAfter(stuck, 0);
  });

  it("close() ends the attempts in flight at once, and later sends fail", async () => {
    const server = await smtpServer({ stallData: () => true });
    const smtp = mailer(server.port);
    const stuck = smtp.send(emailOf("confirmation"), { messageId: "stuck" });
    stuck.catch(() => undefined);
    await pendingAfter(stuck, 300);
    const started = Date.now();
    await smtp.close();
    await expect(stuck).rejects.toMatchObject({ code: "ECANCELED" });
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(smtp.send(emailOf("confirmation"), { messageId: "late" })).rejects.toMatchObject({
      code: "ECANCELED",
    });
  });
});
