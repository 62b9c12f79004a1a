import { connect, createServer, type Server, type Socket } from "node:net";

/** A loopback TCP proxy a test can cut, as a database host that goes away and comes back. */
export interface TcpProxy {
  readonly port: number;
  /** Stops accepting (new connections are refused) and resets every open one. */
  cut(): Promise<void>;
  /** Accepts again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A reset is what the test is after; either side's error ends both.
    socket.on("error", () => undefined);
  };
  const accept = (client: Socket) => {
    const upstream = connect(target);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  };
  const listen = async (port: number): Promise<Server> => {
    const server = createServer(accept);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    return server;
  };
  let server: Server | undefined = await listen(0);
  const port = (server.address() as { port: number }).port;
  const cut = async () => {
    const closing = server;
    server = undefined;
    // close() calls back once the open connections are gone too: reset them meanwhile.
    const closed = closing ? new Promise((resolve) => closing.close(resolve)) : undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: async () => {
      server ??= await listen(port);
    },
    close: cut,
  };
}
