import { connect, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAX_HEADER_BYTES } from "../../src/http/server-limits.ts";
import { startTestServer, type TestServer } from "../support/start-test-server.ts";

/** A raw connection to the server, which may send its request as slowly as it likes. */
interface RawClient {
  /** Writes `text` one byte every `everyMs`, until it is all sent or the connection closes. */
  trickle(text: string, everyMs: number): void;
  send(text: string): void;
  /** What the server answered by the time it closed the connection, and when, in ms after connecting. */
  readonly closed: Promise<{ readonly reply: string; readonly afterMs: number }>;
  readonly isClosed: () => boolean;
  /** What the server has answered so far. */
  readonly reply: () => string;
}

const sockets = new Set<Socket>();
afterEach(() => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
});

function rawClient(server: TestServer): Promise<RawClient> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    sockets.add(socket);
    let reply = "";
    let isClosed = false;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("latin1").on("data", (chunk: string) => (reply += chunk));
    // A write racing the server's close fails with EPIPE or ECONNRESET: the close is what the test watches.
    socket.on("error", () => {});
    socket.once("connect", () => {
      const connectedAt = performance.now();
      socket.off("error", reject);
      const closed = new Promise<{ reply: string; afterMs: number }>((settle) =>
        socket.once("close", () => {
          isClosed = true;
          clearInterval(timer);
          sockets.delete(socket);
          settle({ reply, afterMs: performance.now() - connectedAt });
        }),
      );
      resolve({
        closed,
        isClosed: () => isClosed,
        reply: () => reply,
        send: (text) => socket.write(text, "latin1"),
        trickle: (text, everyMs) => {
          let sent = 0;
          timer = setInterval(() => {
            if (sent === text.length || socket.destroyed) return clearInterval(timer);
            socket.write(text[sent++]!, "latin1");
          }, everyMs);
        },
      });
    });
    socket.once("error", reject);
  });
}

const HEADERS = `GET /health HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nX-Padding: ${"x".repeat(100)}`;

/** The server's answer to a request that was cut off: Node's bare 408, before anything else was written. */
const REQUEST_TIMEOUT = /^HTTP\/1\.1 408 Request Timeout\r\n/;

describe("a request must arrive within API_MAX_REQUEST_DURATION (1s here)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_API_MAX_REQUEST_DURATION: "1s" });
  });
  afterAll(() => server.close());

  /** Cut at the deadline: not before it, and soon after (Node looks for late requests every tenth of it). */
  function expectCutAtTheDeadline(closed: { reply: string; afterMs: number }) {
    expect(closed.reply).toMatch(REQUEST_TIMEOUT);
    expect(closed.afterMs).toBeGreaterThan(900);
    expect(closed.afterMs).toBeLessThan(3_000);
  }

  it("cuts off a connection that sends nothing", async () => {
    const client = await rawClient(server);
    expectCutAtTheDeadline(await client.closed);
  });

  it("cuts off a client that sends its headers a byte at a time, though it never stops sending", async () => {
    const client = await rawClient(server);
    client.trickle(`${HEADERS}\r\n\r\n`, 50);
    expectCutAtTheDeadline(await client.closed);
  });

  it("cuts off a client that trickles its body, and the server goes on", async () => {
    const client = await rawClient(server);
    const body = JSON.stringify({ email: "slow@example.com", password: "correct horse battery staple" });
    client.send(
      "POST /token?grant_type=password HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    client.trickle(body, 50);
    expectCutAtTheDeadline(await client.closed);

    expect((await server.fetch("/health")).status).toBe(200);
    // The password grant never ran, having no whole body to read, and a client cut off is no error of the server's.
    expect(server.logLines().some((line) => line["path"] === "/token" && line["status"] === 200)).toBe(false);
    expect(server.logLines().filter((line) => Number(line["level"]) >= 50)).toEqual([]);
  });

  it("answers a request that arrives in pieces within the deadline, and keeps the connection open", async () => {
    const client = await rawClient(server);
    const pieces = [HEADERS.slice(0, 20), HEADERS.slice(20), "\r\n\r\n"];
    for (const piece of pieces) {
      client.send(piece);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await expect.poll(client.reply, { timeout: 2_000 }).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // Idle between requests is not late: the deadline counts from a request's first byte; keep-alive ends idling.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(client.isClosed()).toBe(false);
  });

  it(`answers 431 to headers over ${MAX_HEADER_BYTES / 1024} KiB, and reads headers under it`, async () => {
    const over = await rawClient(server);
    over.send(`${HEADERS}\r\nX-Big: ${"b".repeat(MAX_HEADER_BYTES)}\r\n\r\n`);
    expect((await over.closed).reply).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);

    const under = await fetch(`${server.url}/health`, { headers: { "x-big": "b".repeat(MAX_HEADER_BYTES - 1024) } });
    expect(under.status).toBe(200);
  });
});

describe("clients that trickle do not hold up the others", () => {
  const deadlineSeconds = 5;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_API_MAX_REQUEST_DURATION: String(deadlineSeconds) });
  });
  afterAll(() => server.close());

  it("answers 50 requests promptly while 200 connections trickle, then cuts the 200 off", async () => {
    const trickling = await Promise.all(Array.from({ length: 200 }, () => rawClient(server)));
    for (const client of trickling) client.trickle(`${HEADERS}\r\n\r\n`, 250);

    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async () => (await fetch(`${server.url}/health`)).status),
    );
    const tookMs = performance.now() - started;
    expect(statuses).toEqual(Array(50).fill(200));
    // Generous: they were answered while every slow client was still connected, well within its deadline.
    expect(tookMs).toBeLessThan(3_000);
    expect(trickling.filter((client) => client.isClosed())).toHaveLength(0);

    const closed = await Promise.all(trickling.map((client) => client.closed));
    for (const { reply, afterMs } of closed) {
      expect(reply).toMatch(REQUEST_TIMEOUT);
      expect(afterMs).toBeGreaterThan(deadlineSeconds * 1000 - 100);
      expect(afterMs).toBeLessThan(deadlineSeconds * 1000 + 3_000);
    }
  });
});
