import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";

/** What a request is named by when no route took it, as GoTrue names it. */
export const NO_ROUTE = "noroute";

/**
 * The route that took the request, as OpenTelemetry and GoTrue write it: `/admin/users/{user_id}`, not Hono's
 * `:user_id`; `noroute` when none did. Known once the request was answered (read it after `await next()`). Both the
 * span and the metrics of a request are labelled by it.
 */
export function routeOf(c: Context<AppEnv>): string {
  const endpoint = c.get("endpoint");
  if (endpoint === undefined) return NO_ROUTE;
  let route = routes.get(endpoint);
  if (route === undefined) {
    route = endpoint.slice(endpoint.indexOf(" ") + 1).replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    routes.set(endpoint, route);
  }
  return route;
}

/** Each endpoint's route, written once: the route table is fixed, and every request's log line names it. */
const routes = new Map<string, string>();
