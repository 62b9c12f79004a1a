import type { AdminPrincipal, Principal, RequestContext, UseCases } from "@latchkey/domain";
import type { Logger } from "./logger.ts";

/** An endpoint as the route table names it: method and path pattern, as in `POST /token`. */
export type Endpoint = `${"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "ALL"} /${string}`;

/** Per-request values set by middleware. */
export interface AppEnv {
  Variables: {
    /** The use cases as this request sees them: their storage work ends by its deadline (Auth.within). */
    auth: UseCases;
    requestId: string;
    /** Carries the request id on every line. */
    log: Logger;
    /** Who calls and from where, as the deployment tells it (see ClientAddress). */
    caller: RequestContext;
    /** The request body, read once; null when it is over the limit. Set for methods that carry a body. */
    body: () => Promise<Uint8Array | null>;
    /** The code of the error the request was answered with, in a body or a redirect: for the request log. */
    errorCode: string;
    /** The endpoint serving the request, set by the route table; unset when none matched. */
    endpoint: Endpoint;
    /** Set by requireUser. */
    principal: Principal;
    /** Set by requireAdmin. */
    admin: AdminPrincipal;
  };
}
