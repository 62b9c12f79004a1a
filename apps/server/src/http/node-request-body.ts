import type { IncomingMessage } from "node:http";
import { type BodyReader, ClientClosedRequest, readWebBody } from "@latchkey/http-hono";

/**
 * Reads the body straight from Node's request, as @hono/node-server hands it to the app (`c.env.incoming`):
 * no web Request, stream and abort signal are built for it. Past the limit it stops collecting and leaves the rest
 * to Node, which discards what the handler did not read once the response is sent. Requests that did not come
 * through Node (in-process ones in tests) are read from the web Request.
 */
export const readNodeBody: BodyReader = (c, maxBytes) => {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return readWebBody(c, maxBytes);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (finish: () => void) => {
      incoming.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      finish();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) settle(() => resolve(null));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    // Node reports a connection lost mid-body as an error ("aborted", ECONNRESET) before the close.
    const onError = (error: Error) =>
      settle(() => reject("code" in error && error.code === "ECONNRESET" ? new ClientClosedRequest() : error));
    // Closed before its end: the client went away mid-body.
    const onClose = () => settle(() => reject(new ClientClosedRequest()));
    if (incoming.readableEnded) throw new Error("the request body was already read");
    incoming.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
};
