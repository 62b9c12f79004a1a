import { Agent, createServer, request, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectionDrain, QUIET_MS } from "../../src/http/connection-drain.ts";

interface Answer {
  readonly status?: number;
  readonly connection?: string;
  readonly reusedSocket?: boolean;
  /** The network error in place of an answer. */
  readonly error?: string;
}

const servers: Server[] = [];
const agents: Agent[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.closeAllConnections();
  for (const agent of agents.splice(0)) agent.destroy();
});

/** A server whose answers take `delayMs`, or never come for /hang; `seen` counts the connections it has taken. */
async function startServer(options: { delayMs?: number; keepAliveTimeout?: number } = {}) {
  let seen = 0;
  const server = createServer({ keepAliveTimeout: options.keepAliveTimeout ?? 5_000 }, (req, res) => {
    if (req.url === "/hang") return;
    setTimeout(() => res.end("ok"), options.delayMs ?? 0);
  });
  server.on("connection", () => seen++);
  const drain = connectionDrain(server, { drainMs: 5_000 });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, drain, port, seen: () => seen };
}

function get(port: number, agent: Agent | false, path = "/"): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode, connection: res.headers.connection, reusedSocket: req.reusedSocket }),
      );
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

const keptAlive = () => {
  const agent = new Agent({ keepAlive: true });
  agents.push(agent);
  return agent;
};

describe("connectionDrain", () => {
  it("answers a request sent on an idle kept-alive connection after the drain began, with Connection: close", async () => {
    const { port, drain } = await startServer();
    const agent = keptAlive();
    expect(await get(port, agent)).toMatchObject({ status: 200, connection: "keep-alive" });

    const drained = drain.drain();
    // Node's own close() closes the idle connection here, under the request the client is about to send on it.
    await sleep(50);
    expect(await get(port, agent)).toEqual({ status: 200, connection: "close", reusedSocket: true });
    expect(await drained).toEqual({ cut: 0 });
  });

  it("answers a request in progress with Connection: close, so that its client sends no other on that connection", async () => {
    const { port, drain } = await startServer({ delayMs: 300 });
    const agent = keptAlive();
    const answer = get(port, agent);
    await sleep(100);
    const drained = drain.drain();
    expect(await answer).toMatchObject({ status: 200, connection: "close" });
    expect(await drained).toEqual({ cut: 0 });
  });

  it("takes the connections the kernel queued before the drain, and new ones until none has come for a while", async () => {
    const { port, drain, seen } = await startServer();
    const queued = Array.from({ length: 20 }, () => get(port, false));
    // The connections are made, and the event loop, blocked, takes none of them before the drain begins.
    await new Promise((resolve) => process.nextTick(resolve));
    const until = performance.now() + 100;
    while (performance.now() < until);
    expect(seen(), "connections taken before the drain (else this checks nothing)").toBe(0);

    const startedAt = performance.now();
    const drained = drain.drain();
    expect(await Promise.all(queued)).toEqual(
      queued.map(() => ({ status: 200, connection: "close", reusedSocket: false })),
    );
    await sleep(QUIET_MS / 2);
    expect(await get(port, false)).toMatchObject({ status: 200, connection: "close" });
    expect(await drained).toEqual({ cut: 0 });
    // Closed once none came for QUIET_MS, not at the end of the drain.
    expect(performance.now() - startedAt).toBeLessThan(QUIET_MS * 3);
    expect(await get(port, false)).toEqual({ error: "ECONNREFUSED" });
  });

  it("leaves an idle kept-alive connection to its keep-alive timeout, and ends when it closes", async () => {
    const { port, drain } = await startServer({ keepAliveTimeout: 1_000 });
    // A raw connection, whose client keeps it as long as the server does.
    const socket = connect({ host: "127.0.0.1", port });
    socket.on("error", () => {});
    sockets.push(socket);
    let reply = "";
    socket.setEncoding("latin1").on("data", (chunk: string) => (reply += chunk));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await vi.waitFor(() => expect(reply).toContain("\r\n\r\nok"));

    const answeredAt = performance.now();
    const drained = drain.drain();
    await sleep(QUIET_MS + 100);
    expect(socket.destroyed, "the idle connection closed before its keep-alive timeout").toBe(false);
    await closed;
    expect(await drained).toEqual({ cut: 0 });
    expect(performance.now() - answeredAt).toBeGreaterThan(900);
  });

  it("cuts the connections still open when the drain time ends", async () => {
    const server = createServer((req, res) => {
      if (req.url !== "/hang") res.end("ok");
    });
    servers.push(server);
    const drain = connectionDrain(server, { drainMs: 600 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const hanging = get(port, false, "/hang");
    await sleep(50);
    const startedAt = performance.now();
    expect(await drain.drain()).toEqual({ cut: 1 });
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(590);
    expect(await hanging).toEqual({ error: "ECONNRESET" });
  });
});
