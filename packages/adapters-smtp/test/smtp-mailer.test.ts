import { afterEach, describe, expect, it } from "vitest";
import type { SmtpMailer, SmtpMailerOptions } from "../src/index.ts";
import { createSmtpMailer, EMAIL_KINDS, SmtpDeliveryError } from "../src/index.ts";
import { type SmtpSinkOptions, startSmtpSink } from "../src/testing/index.ts";
import { CODE, EMAILS, emailOf, firstAddress, hrefOf, REDIRECT_TO, startSilentServer, TOKEN } from "./support.ts";

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
    for (const email of EMAILS) await smtp.send(email);
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
    await smtp.send(emailOf("reauthentication"));
    await smtp.send(emailOf("confirmation"));
    await server.received(2);
    expect(server.messages.map((mail) => mail.subject)).toEqual([`Code: ${CODE}`, "Welcome"]);
  });

  it("defaults the sender name to the admin email", async () => {
    const server = await smtpServer();
    await mailer(server.port, { senderName: undefined }).send(emailOf("password_changed"));
    await server.received(1);
    // Asserted on the raw header: mailparser drops a display name that looks like an address.
    const from = server.messages[0]?.headerLines.find((header) => header.key === "from");
    expect(from?.line).toBe('From: "no-reply@latchkey.example" <no-reply@latchkey.example>');
  });

  it("authenticates with the configured credentials, and only then", async () => {
    const server = await smtpServer();
    await mailer(server.port).send(emailOf("password_changed"));
    expect(server.auths).toEqual([]);
    await mailer(server.port, { user: "relay-user", pass: "s3cret pass" }).send(emailOf("password_changed"));
    await server.received(2);
    expect(server.auths).toEqual([{ username: "relay-user", password: "s3cret pass" }]);
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
      .send(emailOf("recovery"))
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
      .send(emailOf("magic_link"))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SmtpDeliveryError);
    expect((error as Error).message).toContain("spam: [redacted] [redacted]");
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it("fails within the timeouts when the server never greets", async () => {
    const silent = await startSilentServer();
    cleanups.push(() => silent.close());
    const smtp = mailer(silent.port, { connectionTimeoutMs: 300, greetingTimeoutMs: 300, socketTimeoutMs: 500 });
    const started = Date.now();
    await expect(smtp.send(emailOf("confirmation"))).rejects.toBeInstanceOf(SmtpDeliveryError);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("fails within the timeouts when the server greets and then goes silent", async () => {
    const silent = await startSilentServer("220 mute.example ESMTP");
    cleanups.push(() => silent.close());
    const smtp = mailer(silent.port, { connectionTimeoutMs: 300, greetingTimeoutMs: 300, socketTimeoutMs: 500 });
    const started = Date.now();
    const error = await smtp.send(emailOf("confirmation")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SmtpDeliveryError);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("fails when nothing listens", async () => {
    const silent = await startSilentServer();
    await silent.close();
    await expect(mailer(silent.port, { connectionTimeoutMs: 300 }).send(emailOf("invite"))).rejects.toMatchObject({
      code: "ESOCKET",
    });
  });
});
