import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * Where the Prometheus scrape endpoint answers: `/`, as GoTrue serves it, and `/metrics`, where Prometheus and most
 * guides look by default. The exporter's own server answers at one path only, so this one serves its handler.
 */
const SCRAPE_PATHS: ReadonlySet<string> = new Set(["/", "/metrics"]);

/** What of the Prometheus exporter this needs: its handler, which answers with a fresh collection. */
export interface ScrapeHandler {
  getMetricsRequestHandler(request: IncomingMessage, response: ServerResponse): void;
}

export interface ScrapeEndpoint {
  close(): Promise<void>;
}

/** Listens on host:port; a port that cannot be had rejects (EADDRINUSE), so that it stops the start. */
export async function serveScrapes(
  exporter: ScrapeHandler,
  { host, port }: { host: string; port: number },
): Promise<ScrapeEndpoint> {
  const server = createServer((request, response) => {
    let path: string;
    try {
      path = new URL(request.url ?? "/", "http://scrape.invalid").pathname;
    } catch {
      response.writeHead(400).end("Bad Request");
      return;
    }
    if (SCRAPE_PATHS.has(path)) exporter.getMetricsRequestHandler(request, response);
    else response.writeHead(404).end();
  });
  // As the exporter's own: a scrape endpoint left open never holds the process up.
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
