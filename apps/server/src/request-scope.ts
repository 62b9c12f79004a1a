import type { RequestScope } from "@latchkey/http-hono";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";

/** The request's logger (bound to its id) for adapters the domain calls, which never see the request. */
export function createRequestScope(root: Logger): { scope: RequestScope; currentLog: () => Logger } {
  const storage = new AsyncLocalStorage<Logger>();
  return {
    scope: ({ log }, next) => storage.run(log as Logger, next),
    currentLog: () => storage.getStore() ?? root,
  };
}
