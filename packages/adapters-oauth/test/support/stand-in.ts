import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { providerContext, providerOf } from "../../src/create-oauth-providers.ts";
import { boundedFetch } from "../../src/http/bounded-fetch.ts";
import type { ProviderDefinition, ProviderSettings } from "../../src/provider-definition.ts";
import { PROVIDERS } from "../../src/providers/index.ts";

/** A request the stand-in received. */
export interface StandInRequest {
  readonly method: string;
  /** Without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The raw body. */
  readonly body: string;
  /** The body as form fields (empty when it is not a form). */
  readonly form: Readonly<Record<string, string>>;
}

/** How the stand-in answers: JSON, a form-encoded or raw body, or never (to test time limits). */
export type Reply =
  | {
      readonly status?: number;
      readonly json?: unknown;
      readonly form?: Readonly<Record<string, string>>;
      readonly raw?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | "hang";

/** Routes by "METHOD /path"; an unrouted request is answered 404 and recorded. */
export type Routes = Readonly<Record<string, (request: StandInRequest) => Reply>>;

export interface StandIn {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly requests: StandInRequest[];
  /** The requests to one route. */
  requestsTo(route: string): StandInRequest[];
}

const closers: (() => Promise<void>)[] = [];

/** Closes every stand-in started since the last call; for afterEach. */
export async function closeStandIns(): Promise<void> {
  for (const close of closers.splice(0)) await close();
}

/**
 * A provider played on a free local port: it records each request and answers as `routes` say, as the real
 * provider documents. One stand-in plays all of a provider's hosts (EXTERNAL_<P>_URL points at it).
 */
export async function startStandIn(routes: Routes): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const body = Buffer.concat(chunks).toString("utf8");
      const isForm = (req.headers["content-type"] ?? "").includes("application/x-www-form-urlencoded");
      const request: StandInRequest = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        form: isForm ? Object.fromEntries(new URLSearchParams(body)) : {},
      };
      requests.push(request);
      const route = routes[`${request.method} ${request.path}`];
      const reply: Reply = route ? route(request) : { status: 404, json: { message: "Not Found" } };
      if (reply === "hang") return;
      const [contentType, text] =
        reply.raw !== undefined
          ? ["text/plain", reply.raw]
          : reply.form !== undefined
            ? ["application/x-www-form-urlencoded", new URLSearchParams(reply.form).toString()]
            : ["application/json", JSON.stringify(reply.json ?? {})];
      res.writeHead(reply.status ?? 200, { "Content-Type": contentType, ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (route) => requests.filter((request) => `${request.method} ${request.path}` === route),
  };
}

/** The client id and secret of an HTTP Basic authorization header (form-decoded, as RFC 6749 2.3.1 encodes them). */
export function basicCredentials(request: StandInRequest): { id: string; secret: string } | undefined {
  const header = request.headers.authorization;
  if (!header?.startsWith("Basic ")) return undefined;
  const [id, secret] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":") as [string, string];
  const decode = (text: string) => decodeURIComponent(text.replaceAll("+", " "));
  return { id: decode(id), secret: decode(secret) };
}

/** The redirect URI every test configures. */
export const REDIRECT_URI = "http://localhost:9999/callback";
export const CLIENT_ID = "test-client-id";
export const CLIENT_SECRET = "test-client-secret";

/** Settings of one provider pointed at a stand-in. */
export function settingsFor(url: string, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    clientIds: [CLIENT_ID],
    secret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    url,
    emailOptional: false,
    skipNonceCheck: false,
    ...extra,
  };
}

/**
 * A provider made from its definition, or its registered name, configured against `url` (its EXTERNAL_<P>_URL),
 * with a short time limit for the tests of one.
 */
export function providerAt(
  made: ProviderDefinition | string,
  url: string,
  extra: Partial<ProviderSettings> = {},
  timeoutMs = 2_000,
) {
  const definition: ProviderDefinition | undefined =
    typeof made === "string" ? PROVIDERS.find((provider) => provider.name === made) : made;
  if (!definition) throw new Error(`no provider ${String(made)}`);
  const context = providerContext(definition.name, settingsFor(url, extra), boundedFetch({ timeoutMs }));
  return providerOf(definition, context);
}
