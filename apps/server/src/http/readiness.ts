import type { Readiness, ReadinessReport } from "@latchkey/http-hono";

/**
 * How long GET /ready waits for each dependency. An orchestrator probes every few seconds with a timeout of its own
 * (Kubernetes: 1 s by default, often raised): a dependency slower than this is as good as down for requests too.
 */
export const READINESS_TIMEOUT_MS = 2_000;

/** A dependency to check, by the name the answer gives it: resolves when it answers, rejects when it fails. */
export type ReadinessChecks = Readonly<Record<string, () => Promise<unknown>>>;

/**
 * GET /ready's checks, run together, each "unavailable" when it rejects or takes longer than `timeoutMs`. Why one
 * failed is not said: the answer may reach anyone, and the outage is in the log.
 */
export function createReadiness(checks: ReadinessChecks, timeoutMs = READINESS_TIMEOUT_MS): Readiness {
  return async () => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => [name, await answersWithin(check, timeoutMs)] as const),
    );
    return Object.fromEntries(results.map(([name, ok]) => [name, ok ? "ok" : "unavailable"])) as ReadinessReport;
  };
}

async function answersWithin(check: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    // A check that is late goes on, unawaited: one attempt, bounded by the pool's or the client's own timeouts.
    return await Promise.race([check().then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
