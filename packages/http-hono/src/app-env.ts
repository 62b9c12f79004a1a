import type { AdminPrincipal, Principal } from "@latchkey/domain";
import type { Logger } from "./logger.ts";

/** Per-request values set by middleware. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Carries the request id on every line. */
    log: Logger;
    /** The request body, read once; null when it is over the limit. Set for methods that carry a body. */
    body: () => Promise<Uint8Array | null>;
    /** Set by requireUser. */
    principal: Principal;
    /** Set by requireAdmin. */
    admin: AdminPrincipal;
  };
}
