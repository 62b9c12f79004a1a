import type { Readiness } from "@latchkey/http-hono";

export interface DrainingReadiness {
  readonly readiness: Readiness;
  /** From now on GET /ready answers 503, whatever the dependencies say. */
  startDraining(): void;
}

/**
 * GET /ready while the server drains on its way out (README, "Shutdown"): 503, with the dependencies' states as
 * ever, so that a load balancer that probes it stops sending before the drain ends.
 */
export function drainingReadiness(readiness: Readiness): DrainingReadiness {
  let draining = false;
  return {
    readiness: async () => {
      const answer = await readiness();
      return draining ? { ...answer, ready: false } : answer;
    },
    startDraining: () => {
      draining = true;
    },
  };
}
