import { type LookupAddress, lookup } from "node:dns";
import { isIP } from "node:net";
import type { Agent, fetch as UndiciFetch } from "undici";
import { boundedFetch } from "../http/bounded-fetch.ts";
import { addressProblem, type UrlGuardOptions, urlProblem } from "./url-guard.ts";

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** Every address of a host name: the system resolver's, or a test's. */
export type Resolver = (hostname: string, callback: (error: Error | null, addresses: LookupAddress[]) => void) => void;

const resolveAll: Resolver = (hostname, callback) => lookup(hostname, { all: true }, callback);

/**
 * A fetch for the URLs of custom providers: bounded in time and size, never following redirects (boundedFetch), its
 * URL's form checked before each request, and every address the connection is about to use checked as it
 * connects. Checking at connect time, in the resolver the socket uses, leaves no gap between the check and the
 * connection for a host whose DNS answer changes in between (DNS rebinding).
 */
export function guardedFetch(options: UrlGuardOptions, resolve: Resolver = resolveAll): typeof globalThis.fetch {
  const guardedLookup = (hostname: string, lookupOptions: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      const problem = addresses.map(({ address }) => addressProblem(address, options)).find((each) => each !== null);
      if (problem) return callback(new Error(`${hostname}: ${problem}`), []);
      if (lookupOptions.all) return callback(null, addresses);
      const [first] = addresses;
      return first ? callback(null, first.address, first.family) : callback(new Error(`${hostname}: no address`), []);
    });
  };
  // undici is loaded at the first request, not at the start: only custom providers use it, and loaded it holds
  // about 7 MiB of the heap of every server, most of which has none.
  let client: Promise<{ agent: Agent; fetch: typeof UndiciFetch }> | undefined;
  const base = (async (input: string | URL | Request, init: RequestInit = {}) => {
    client ??= import("undici").then(({ Agent, fetch }) => ({
      agent: new Agent({ connect: { lookup: guardedLookup as never } }),
      fetch,
    }));
    const { agent, fetch } = await client;
    return fetch(input as never, { ...init, dispatcher: agent } as never);
  }) as unknown as typeof globalThis.fetch;
  const bounded = boundedFetch({ fetch: base });
  return async (input, init) => {
    const raw = input instanceof Request ? input.url : String(input);
    const checked = urlProblem(raw, options);
    if ("problem" in checked) throw new Error(`${raw}: ${checked.problem}`);
    // An address written in the URL is connected to without a lookup: it is checked here instead.
    const host = checked.url.hostname.replace(/^\[|\]$/g, "");
    const problem = isIP(host) ? addressProblem(host, options) : null;
    if (problem) throw new Error(`${raw}: ${problem}`);
    return bounded(input, init);
  };
}
