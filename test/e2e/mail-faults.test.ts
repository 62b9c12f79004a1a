import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomNamespace } from "@latchkey/adapters-postgres/testing";
import { startSmtpSink } from "@latchkey/adapters-smtp/testing";
import { startTestServer } from "@latchkey/server/testing";
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";

const password = "correct horse battery";
const signUp = (server: Awaited<ReturnType<typeof startTestServer>>, email: string) =>
  server.fetch("/signup", { method: "POST", json: { email, password } });

describe("mail when things go wrong", () => {
  it("keeps a signup made while the mail server is down, and delivers its mail once the server is back", async () => {
    const server = await startTestServer();
    try {
      await server.mail.stop();
      const response = await signUp(server, "patient@example.com");
      expect(response.status).toBe(200);
      // Delivery is being attempted and refused meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(server.mail.messages).toHaveLength(0);

      await server.mail.start();
      const mail = await server.mail.waitFor("patient@example.com", undefined, 15_000);
      expect(mail.subject).toBe("Confirm your email address");
      // Once, and only once, however many attempts it took.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(server.mail.to("patient@example.com")).toHaveLength(1);
      const { schema } = server.db;
      const [users] = await server.db.db
        .select({ n: count() })
        .from(schema.users)
        .where(eq(schema.users.email, "patient@example.com"));
      expect(users?.n).toBe(1);
      const [entry] = await server.db.db.select().from(schema.outbox);
      expect(entry?.attempts).toBeGreaterThan(0);
      expect(entry?.deliveredAt).toBeInstanceOf(Date);
      expect(entry?.sealedMessage).toBeNull();
    } finally {
      await server.close();
    }
  }, 40_000);

  it("sends every mail exactly once when two instances share the database", async () => {
    const mail = await startSmtpSink();
    const namespace = randomNamespace();
    const first = await startTestServer({}, {}, { mail, namespace, dropTablesOnClose: false });
    const second = await startTestServer({}, {}, { mail, namespace });
    try {
      const addresses = Array.from({ length: 24 }, (_, i) => `crowd-${i}@example.com`);
      const responses = await Promise.all(addresses.map((address, i) => signUp(i % 2 === 0 ? first : second, address)));
      expect(responses.map((response) => response.status)).toEqual(addresses.map(() => 200));
      await mail.received(addresses.length);
      // Both workers were woken by every write; give a duplicate every chance to show up.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(mail.messages.map((message) => message.to).sort()).toEqual([...addresses].sort());
    } finally {
      await first.close();
      await second.close();
      await mail.close();
    }
  }, 40_000);

  it("delivers everyone else's confirmation within 2 s while five recipients' servers never answer it", async () => {
    const stuck = Array.from({ length: 5 }, (_, n) => `stuck-${n}@example.com`);
    const mail = await startSmtpSink({
      stallData: (recipients) => recipients.some((address) => stuck.includes(address)),
    });
    const server = await startTestServer({}, {}, { mail });
    try {
      for (const address of stuck) expect((await signUp(server, address)).status).toBe(200);
      // Their attempts are under way, and stay stuck for the rest of the test (SMTP's own timeouts are longer).
      await new Promise((resolve) => setTimeout(resolve, 500));

      const others = Array.from({ length: 20 }, (_, n) => `on-time-${n}@example.com`);
      const delays = await Promise.all(
        others.map(async (address, n) => {
          await new Promise((resolve) => setTimeout(resolve, n * 50));
          expect((await signUp(server, address)).status).toBe(200);
          // From the answer: the mail was queued by then, and the time the signup took is not the outbox's.
          const answered = Date.now();
          return (await mail.waitFor(address, undefined, 10_000)).receivedAt - answered;
        }),
      );
      expect(Math.max(...delays)).toBeLessThan(2_000);
      for (const address of stuck) expect(mail.to(address)).toEqual([]);
    } finally {
      // The sink first: its stalled connections end, so the worker's drain has nothing to wait for.
      await mail.close();
      await server.close();
    }
  }, 40_000);

  it("falls back to the built-in body, in bounded time, when a template hangs or is huge", async () => {
    const sockets = new Set<import("node:net").Socket>();
    let hugeBytesWritten = 0;
    const templates = createHttpServer((request, response) => {
      if (request.url === "/hang") return; // never answers
      response.writeHead(200, { "content-type": "text/html" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      const pump = () => {
        while (hugeBytesWritten < 50 * 1024 * 1024) {
          hugeBytesWritten += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end();
      };
      response.on("error", () => undefined);
      pump();
    });
    templates.on("connection", (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => templates.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(templates.address() as AddressInfo).port}`;
    const server = await startTestServer({
      AUTH_MAILER_TEMPLATES_CONFIRMATION: `${origin}/hang`,
      AUTH_MAILER_TEMPLATES_RECOVERY: `${origin}/huge`,
      AUTH_MAILER_AUTOCONFIRM: "false",
    });
    try {
      const started = Date.now();
      await signUp(server, "template@example.com");
      const confirmation = await server.mail.waitFor("template@example.com", undefined, 15_000);
      expect(Date.now() - started).toBeLessThan(12_000);
      expect(confirmation.text).toContain(confirmation.link!);

      await server.db.stores.users.update({
        ...(await server.db.stores.users.findByEmail("template@example.com"))!,
        emailConfirmedAt: new Date(),
      });
      await server.fetch("/recover", { method: "POST", json: { email: "template@example.com" } });
      const recovery = await server.mail.waitFor(
        "template@example.com",
        (m) => m.subject === "Reset your password",
        15_000,
      );
      expect(recovery.html.length).toBeLessThan(100_000);
      expect(recovery.text).toContain(recovery.link!);
      expect(hugeBytesWritten).toBeLessThan(50 * 1024 * 1024);
    } finally {
      await server.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => templates.close(() => resolve()));
    }
  }, 40_000);
});
