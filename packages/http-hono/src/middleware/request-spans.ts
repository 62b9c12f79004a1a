import { context, propagation, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { NO_ROUTE, routeOf } from "./request-route.ts";

/**
 * One SERVER span per request, the parent of what the request does (database statements, calls to providers),
 * continuing the caller's trace when it sends `traceparent`. Named and described by the route that took it:
 * `http.route` (`/admin/users/{user_id}`), each parameter as `http.route.params.<name>` and GoTrue's
 * `http.route.param.<name>`, the method under its old and current names, the status and the request id. Never
 * the query or the body, where tokens travel. Installed only when tracing is on (TRACING_ENABLED).
 */
export function requestSpans(tracer: Tracer): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const parent = propagation.extract(context.active(), c.req.raw.headers, {
      get: (headers, key) => headers.get(key) ?? undefined,
      keys: (headers) => [...headers.keys()],
    });
    const method = c.req.method;
    const span = tracer.startSpan(`${method} ${NO_ROUTE}`, { kind: SpanKind.SERVER }, parent);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      // Errors are answered by the error handler; one that escapes it is a failure of this request all the same.
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      if (span.isRecording()) describe(span, c);
      span.end();
    }
  };

  function describe(span: Span, c: Parameters<MiddlewareHandler<AppEnv>>[0]) {
    const method = c.req.method;
    const route = routeOf(c);
    const status = c.res.status;
    span.updateName(`${method} ${route}`);
    span.setAttributes({
      "http.route": route,
      "http.method": method,
      "http.request.method": method,
      "http.response.status_code": status,
      "http.status_code": status,
      "request.id": c.get("requestId") ?? "",
    });
    if (route !== NO_ROUTE) {
      for (const [name, value] of Object.entries(c.req.param() as Record<string, string>)) {
        span.setAttribute(`http.route.params.${name}`, value);
        span.setAttribute(`http.route.param.${name}`, value);
      }
    }
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
}
