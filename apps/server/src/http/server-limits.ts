import type { ServerOptions } from "node:http";
import type { Config } from "../config/index.ts";

/** The request line and headers together, at most; more is answered 431. Node's default, fixed here. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** How long a connection may stay idle between one request's answer and the next request (Node's default). */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * The limits of the Node HTTP server, the binary's and the tests' alike. A request's headers and body must arrive
 * within API_MAX_REQUEST_DURATION of its first byte (of the connection's opening, for its first request, so a
 * connection that sends nothing is cut too): past it Node answers 408 and closes the connection. Node looks for
 * late requests every `connectionsCheckingInterval` (30 s by default, which would let one run for twice the bound):
 * a tenth of the bound, at most a second. Reading is evented, so a client that trickles holds a socket and a few
 * bytes, and the others are served meanwhile.
 *
 * The answer's work is not bounded here, by a timer that would answer 504 while a write may still commit: the
 * database bounds it (HttpAppOptions.requestDurationMs), and what else a request waits on has limits of its own (calls to
 * providers, captcha, Redis).
 */
export function serverLimits(api: Pick<Config["api"], "maxRequestDurationSeconds">): ServerOptions {
  const deadlineMs = Math.max(1, Math.round(api.maxRequestDurationSeconds * 1000));
  return {
    headersTimeout: deadlineMs,
    requestTimeout: deadlineMs,
    connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.round(deadlineMs / 10))),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
}
