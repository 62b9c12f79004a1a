import type { ServerResponse } from "node:http";
import { type DefaultHeaders, viaWebResponse } from "@latchkey/http-hono";

/**
 * Sets the headers every answer carries on Node's response, as @hono/node-server hands it to the app
 * (`c.env.outgoing`), before the answer is written: a property each, where reading the web answer's headers would
 * build web Headers for every request. Node merges them with the answer's own when it writes the head, the answer's
 * winning (`writeHead`), which is what a default is. Requests that did not come through Node (in-process ones in
 * tests) get them through the web Response.
 */
export const nodeDefaultHeaders: DefaultHeaders = (c, headers) => {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || outgoing.headersSent) return viaWebResponse(c, headers);
  for (const name in headers) outgoing.setHeader(name, headers[name]!);
};
