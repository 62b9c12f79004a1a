import { type Server as HttpServer, ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * The listener closes once no connection has come for this long (counted from the signal at the earliest): the
 * load balancer has stopped sending.
 */
export const QUIET_MS = 500;

export interface ConnectionDrain {
  /**
   * Stops the server without resetting a request that reached it (README, "Shutdown"). Resolves once every
   * connection is closed, with how many were cut when `drainMs` ran out first.
   */
  drain(): Promise<{ readonly cut: number }>;
}

/**
 * How the server stops serving. Node's `server.close()` does it badly for a server under load, in three ways:
 * - It closes the listening socket at once, and the kernel resets the connections it has accepted that Node has not
 *   taken yet (its backlog), though their clients have sent their requests.
 * - It closes every idle kept-alive connection at once, while a client may be sending its next request on one.
 * - The busy ones are answered keep-alive, so their clients send again on them, until they are cut.
 *
 * So, from `drain()`:
 * - Every answer not begun says `Connection: close`, and Node closes its connection once it is written.
 * - The listener stays open while connections keep coming (a load balancer not yet done deregistering the server),
 *   each answered likewise; it closes once none has come for QUIET_MS since the signal, or after half of `drainMs`
 *   at most, so that the last requests taken have the other half. It closes in the event loop's check phase, right
 *   after a poll phase that has taken whatever the kernel's queue held, so no connection is left in it, but one
 *   that lands in the microseconds between (a client that goes on sending after the quiet is over).
 * - An idle kept-alive connection is left to its keep-alive timeout, which its client was told of (`Keep-Alive:
 *   timeout=5`), or to its next request, answered with `Connection: close`: closing it sooner races that request.
 * - What is still open when `drainMs` ends is cut.
 */
export function connectionDrain(http: HttpServer, options: { readonly drainMs: number }): ConnectionDrain {
  const connections = new Set<Socket>();
  let lastConnectionAt = 0;

  // Per connection, not per request: nothing here runs for a request until the drain begins (a kept-alive
  // connection carries thousands of them).
  http.on("connection", (socket: Socket) => {
    lastConnectionAt = performance.now();
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });

  /** Resolves in a check phase once no connection has come for QUIET_MS (or at `deadline`). */
  const quiet = async (deadline: number) => {
    for (;;) {
      const waitMs = Math.min(lastConnectionAt + QUIET_MS, deadline) - performance.now();
      if (waitMs > 0) await sleep(waitMs);
      // Timers run before the poll phase: let one poll take what the kernel has queued meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      if (performance.now() >= deadline || performance.now() - lastConnectionAt >= QUIET_MS) return;
    }
  };

  return {
    async drain() {
      // Requests from now on, before the app's listener, which may begin its answer in the same turn.
      http.prependListener("request", (_request, response: ServerResponse) => {
        response.shouldKeepAlive = false;
      });
      // The requests being answered: each connection's current response (Node keeps it on the socket as
      // `_httpMessage` while it is written, which is how http itself finds it).
      for (const socket of connections) {
        const response = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
        if (response instanceof ServerResponse && !response.headersSent) response.shouldKeepAlive = false;
      }
      const startedAt = performance.now();
      // The listener stays open QUIET_MS after the signal at least, for a load balancer a moment behind it.
      lastConnectionAt = Math.max(lastConnectionAt, startedAt);
      let cut = 0;
      const closed = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          cut = connections.size;
          for (const socket of connections) socket.destroy();
        }, options.drainMs);
        http.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      await quiet(startedAt + options.drainMs / 2);
      // net's close, not http's: the listener alone; the connections close as said above. `close` comes when the
      // last one has.
      NetServer.prototype.close.call(http);
      await closed;
      return { cut };
    },
  };
}
