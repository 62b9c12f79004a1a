import { AuthError } from "@latchkey/domain";
import type { Context } from "hono";

export const MAX_BODY_BYTES = 1024 * 1024;

export const bodyTooLarge = () =>
  new AuthError("request_entity_too_large", `Request body too large (max ${MAX_BODY_BYTES} bytes)`);

/**
 * The client went away before its body ended: nobody is left to answer, so this is no client error (nothing is
 * answered 400) and no failure of ours (nothing is logged as one). The request log says 499, nginx's "client
 * closed request".
 */
export class ClientClosedRequest extends Error {
  constructor() {
    super("the client closed the request before its body ended");
    this.name = "ClientClosedRequest";
  }
}

/** The status the request log shows for a ClientClosedRequest; the client never sees it. */
export const CLIENT_CLOSED_REQUEST_STATUS = 499;

/**
 * Reads the whole body of a request, or answers null as soon as it is larger than `maxBytes`. How depends on the
 * runtime serving the app: the default reads the web Request's stream; a Node server can read its own request.
 * Rejects with ClientClosedRequest when the client goes away mid-body.
 */
export type BodyReader = (c: Context, maxBytes: number) => Promise<Uint8Array | null>;

/** Reads the web Request's body stream, stopping at the limit rather than buffering all of an oversized body. */
export const readWebBody: BodyReader = async (c, maxBytes) => {
  const body = c.req.raw.body;
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return concat(chunks, size);
};

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const joined = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}
