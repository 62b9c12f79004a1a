// Its own entry point, so that OpenTelemetry's API is loaded only when tracing is on (TRACING_ENABLED): the
// composition root imports it then, and createHttpApp takes the middleware it makes.
export { requestSpans } from "./middleware/request-spans.ts";
