import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";

// Database spans, loaded only when a tracer is given (PostgresOptions.tracer): without one, node-postgres's query
// functions are used as they are, and this module is never imported.

/** node-postgres's `query` of a pool or a client, whichever form it is called in. */
// biome-ignore lint/suspicious/noExplicitAny: pg's overloads return what each form returns; the wrapper keeps it.
export type QueryFunction = (...args: any[]) => any;

/** Gives a `query` function the same one, tracing each statement it runs. */
export type WrapQuery = <Q extends QueryFunction>(query: Q) => Q;

/**
 * Each statement, run through a wrapped `query` within a traced operation (a request, a mail sent), becomes a
 * CLIENT span, child of that operation's span: named by its operation (`SELECT`, `INSERT`, `BEGIN`, ...), with
 * the database and the statement's text as sent, its `$n` placeholders unfilled: parameter values are never
 * recorded, nor the server's error message, which can quote one. Statements run outside any span (the outbox
 * worker's polls, the migrations at start) make none, rather than a trace each.
 */
export function querySpans(tracer: Tracer, url: string): WrapQuery {
  const target = targetOf(url);
  return <Q extends QueryFunction>(query: Q) =>
    ((...args: Parameters<Q>) => {
      const parent = context.active();
      const [config, values, callback] = args as unknown[];
      // The callback forms (pg-pool's own) and submittable queries are left alone: nothing here uses them.
      const text = typeof config === "string" ? config : (config as { text?: unknown } | null)?.text;
      if (
        trace.getSpan(parent) === undefined ||
        typeof text !== "string" ||
        typeof values === "function" ||
        typeof callback === "function"
      ) {
        return query(...args);
      }
      const operation = /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase();
      const span = tracer.startSpan(
        operation ?? "postgresql",
        {
          kind: SpanKind.CLIENT,
          attributes: {
            ...target,
            "db.query.text": text,
            ...(operation === undefined ? {} : { "db.operation.name": operation }),
          },
        },
        parent,
      );
      let pending: Promise<unknown>;
      try {
        pending = query(...args);
      } catch (error) {
        failed(span, error);
        span.end();
        throw error;
      }
      return pending.then(
        (result) => {
          span.end();
          return result;
        },
        (error: unknown) => {
          failed(span, error);
          span.end();
          throw error;
        },
      );
    }) as Q;
}

/** The attributes every statement's span has: the database system, its name, and the server. */
function targetOf(url: string): Record<string, string | number> {
  const attributes: Record<string, string | number> = { "db.system.name": "postgresql" };
  if (!URL.canParse(url)) return attributes;
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.slice(1));
  if (database !== "") attributes["db.namespace"] = database;
  if (parsed.hostname !== "") attributes["server.address"] = parsed.hostname.replace(/^\[|\]$/g, "");
  if (parsed.port !== "") attributes["server.port"] = Number(parsed.port);
  return attributes;
}

/** The SQLSTATE (or the connection error's code), never the message. */
function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type = typeof code === "string" && code !== "" ? code : error instanceof Error ? error.name : "_OTHER";
  span.setAttribute("error.type", type);
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) span.setAttribute("db.response.status_code", code);
  span.setStatus({ code: SpanStatusCode.ERROR });
}
