import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

// node:http rather than fetch: a hook may be called on every refresh (custom_access_token), and fetch (undici, its
// web streams and abort signals) cost about 1 ms of CPU a call where a plain request on a kept-alive connection
// costs a fraction of it (bench/README.md, "What a custom_access_token hook costs").

/** An answer as the hook caller reads it. */
export interface HookResponse {
  readonly status: number;
  /** A header's value (a repeated one joined with ", "), or null. */
  header(name: string): string | null;
  /** The body as text, or null when it is longer than `limit` bytes: reading stops there. */
  read(limit: number): Promise<string | null>;
  /** Lets go of a body not read, so that its connection can serve another call. */
  discard(): void;
}

/** One POST of a call: rejects when the hook cannot be reached, or `signal` aborts. */
export type Transport = (
  uri: string,
  init: { readonly headers: Readonly<Record<string, string>>; readonly body: string; readonly signal: AbortSignal },
) => Promise<HookResponse>;

// Connections kept alive between calls, as Go's client keeps GoTrue's.
const agents = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };

/** The POST on node:http(s); a redirect is an answer like any other (not followed). */
export const nodeTransport: Transport = (uri, { headers, body, signal }) =>
  new Promise((resolve, reject) => {
    const url = new URL(uri);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        agent: url.protocol === "https:" ? agents["https:"] : agents["http:"],
        signal,
      },
      (response) => resolve(responseOf(response)),
    );
    request.on("error", reject);
    request.end(body);
  });

function responseOf(response: IncomingMessage): HookResponse {
  return {
    status: response.statusCode ?? 0,
    header: (name) => {
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
    read: (limit) => readCapped(response, limit),
    discard: () => void response.resume(),
  };
}

function readCapped(response: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Reading stops here; the connection goes with the rest of the body.
      settle(() => resolve(null));
      response.destroy();
    });
    response.on("end", () => settle(() => resolve(Buffer.concat(chunks).toString("utf8"))));
    response.on("error", (error) => settle(() => reject(error)));
    response.on("close", () => settle(() => reject(new Error("the answer was cut off"))));
  });
}
