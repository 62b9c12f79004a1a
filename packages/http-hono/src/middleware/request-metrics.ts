import type { Meter } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { routeOf } from "./request-route.ts";

/** OpenTelemetry's recommended buckets for http.server.request.duration, in seconds (the SDK's default are ms). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * Two instruments per request, labelled by the route that took it (`/admin/users/{user_id}`, `noroute`, as the
 * span is): `http.server.request.duration` (a histogram, in seconds) by method, route and status, and GoTrue's
 * `http_status_codes` counter by `code` and `http.route`. Installed only when metrics are on (METRICS_ENABLED).
 */
export function requestMetrics(meter: Meter): MiddlewareHandler<AppEnv> {
  const duration = meter.createHistogram("http.server.request.duration", {
    unit: "s",
    description: "Duration of HTTP server requests.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const statusCodes = meter.createCounter("http_status_codes", {
    description: "HTTP responses by status code and route.",
  });
  return async (c, next) => {
    const started = performance.now();
    let failed = false;
    try {
      await next();
    } catch (error) {
      // Errors are answered by the error handler; one that escapes it becomes a 500 all the same.
      failed = true;
      throw error;
    } finally {
      const route = routeOf(c);
      const status = failed ? 500 : c.res.status;
      duration.record((performance.now() - started) / 1000, {
        "http.request.method": c.req.method,
        "http.route": route,
        "http.response.status_code": status,
      });
      statusCodes.add(1, { code: status, "http.route": route });
    }
  };
}
