import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the receiver took: an OTLP export, or a siteverify call. */
interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A span of an OTLP/JSON export, flattened with its resource and scope. */
export interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP's numbering: 2 SERVER, 3 CLIENT. */
  readonly kind: number;
  /** OTLP's numbering: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly resource: Readonly<Record<string, unknown>>;
  readonly scope: string;
}

export const SPAN_KIND = { server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** http://127.0.0.1:<port>: OTEL_EXPORTER_OTLP_ENDPOINT; traces arrive at /v1/traces. */
  readonly url: string;
  /** Every request so far. */
  readonly received: readonly Received[];
  /** The trace exports so far. */
  exports(): Received[];
  /** Every span of the OTLP/JSON exports so far. */
  spans(): ExportedSpan[];
  /** Resolves with the spans once `predicate` holds of them; fails after `timeoutMs`. */
  waitForSpans(predicate: (spans: ExportedSpan[]) => boolean, timeoutMs?: number): Promise<ExportedSpan[]>;
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP collector in this process: it keeps what is posted to /v1/traces and answers 200. It also stands
 * in for a captcha provider at /siteverify, answering every token as valid.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks) });
      if (request.url === "/siteverify") {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ success: true }));
        return;
      }
      // An empty ExportTraceServiceResponse, in the request's encoding: {} in JSON, no bytes in protobuf.
      const json = request.headers["content-type"] === "application/json";
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      response.end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const exports = () => received.filter((request) => request.path === "/v1/traces");
  const spans = () =>
    exports()
      .filter((request) => request.headers["content-type"] === "application/json")
      .flatMap((request) => spansOfExport(JSON.parse(request.body.toString("utf8")) as OtlpJson));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    exports,
    spans,
    waitForSpans: async (predicate, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = spans();
        if (predicate(now)) return now;
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for spans; got ${JSON.stringify(now.map((span) => span.name))}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface OtlpJson {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly OtlpAttribute[] };
    readonly scopeSpans?: readonly {
      readonly scope?: { readonly name?: string };
      readonly spans?: readonly {
        readonly traceId: string;
        readonly spanId: string;
        readonly parentSpanId?: string;
        readonly name: string;
        readonly kind: number;
        readonly status?: { readonly code?: number };
        readonly attributes?: readonly OtlpAttribute[];
      }[];
    }[];
  }[];
}

interface OtlpAttribute {
  readonly key: string;
  readonly value: {
    readonly stringValue?: string;
    readonly intValue?: number | string;
    readonly doubleValue?: number;
    readonly boolValue?: boolean;
  };
}

function spansOfExport(body: OtlpJson): ExportedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        statusCode: span.status?.code ?? 0,
        attributes: attributesOf(span.attributes),
        resource,
        scope: scopeSpans.scope?.name ?? "",
      })),
    );
  });
}

function attributesOf(list: readonly OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue === undefined ? undefined : Number(value.intValue)) ??
        value.doubleValue ??
        value.boolValue,
    ]),
  );
}
