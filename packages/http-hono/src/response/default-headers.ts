import type { Context } from "hono";

/**
 * Adds headers to the answer of the request as defaults: a header of the same name that the route set itself wins.
 * Called once the route has answered (`c.res` is its answer), before the answer is written.
 */
export type DefaultHeaders = (c: Context, headers: Readonly<Record<string, string>>) => void;

/**
 * Through the web Response: portable (in-process requests in tests), but on @hono/node-server reading `c.res.headers`
 * turns the light answer into web Headers, which costs a request more than most of its own work. The server passes
 * one that sets them on Node's response instead (apps/server, http/node-default-headers.ts).
 */
export const viaWebResponse: DefaultHeaders = (c, headers) => {
  const answer = c.res.headers;
  for (const name in headers) if (!answer.has(name)) answer.set(name, headers[name]!);
};
