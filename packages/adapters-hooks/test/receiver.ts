import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the receiver got: its headers and its body as sent, to verify a signature over. */
interface ReceivedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers the `index`th request (from 0). */
export type Reply = (res: ServerResponse, request: ReceivedRequest, index: number) => void;

export interface Receiver {
  readonly url: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** A hook endpoint on 127.0.0.1: records every request and answers as `reply` says. */
export async function startReceiver(reply: Reply): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(request);
      reply(res, request, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An answer of `status`, with `headers`, and `body` as it is. */
export const answer =
  (status: number, body = "", headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** A JSON answer of 200. */
export const json = (body: unknown): Reply => answer(200, JSON.stringify(body), { "Content-Type": "application/json" });

/** A port on 127.0.0.1 nothing listens on: a connection to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const receiver = await startReceiver(answer(204));
  await receiver.close();
  return receiver.url;
}
