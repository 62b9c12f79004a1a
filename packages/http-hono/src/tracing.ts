// Its own entry point, so that OpenTelemetry's API is loaded only when tracing or metrics are on (TRACING_ENABLED,
// METRICS_ENABLED): the composition root imports it then, and createHttpApp takes the middlewares it makes.
export { requestMetrics } from "./middleware/request-metrics.ts";
export { requestSpans } from "./middleware/request-spans.ts";
