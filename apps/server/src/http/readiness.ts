import type { Readiness, ReadinessReport } from "@latchkey/http-hono";
import type { ReadinessDependency } from "../config/settings.ts";

/**
 * How long GET /ready waits for each dependency. An orchestrator probes every few seconds with a timeout of its own
 * (Kubernetes: 1 s by default, often raised): a dependency slower than this is as good as down for requests too.
 */
const READINESS_TIMEOUT_MS = 2_000;

/** Checks a dependency within `timeoutMs` (a hint: the check is cut off then anyway): resolves when it answers. */
export type DependencyCheck = (timeoutMs: number) => Promise<unknown>;

/** A dependency to check, and whether its failure leaves the instance unable to serve (503) or is reported only. */
interface ReadinessCheck {
  readonly check: DependencyCheck;
  readonly required: boolean;
}

/** What GET /ready checks, by the name the answer gives each. */
export type ReadinessChecks = Readonly<Record<string, ReadinessCheck>>;

/**
 * GET /ready's checks, run together, each "unavailable" when it rejects or takes longer than `timeoutMs`; the
 * instance is ready unless a required one is unavailable. Why one failed is not said: the answer may reach anyone,
 * and the outage is in the log.
 */
export function createReadiness(checks: ReadinessChecks, timeoutMs = READINESS_TIMEOUT_MS): Readiness {
  return async () => {
    const results = await Promise.all(
      Object.entries(checks).map(
        async ([name, { check, required }]) => [name, required, await answersWithin(check, timeoutMs)] as const,
      ),
    );
    return {
      ready: results.every(([, required, ok]) => ok || !required),
      dependencies: Object.fromEntries(
        results.map(([name, , ok]) => [name, ok ? "ok" : "unavailable"]),
      ) as ReadinessReport,
    };
  };
}

/**
 * The server's readiness (README, "Readiness"): the database always counts, as the instance serves nothing without
 * it; Redis and SMTP, when configured, are reported, and count only when API_READINESS_DEPENDENCIES names them:
 * without Redis, limits are counted in the instance's memory, and without SMTP, mail waits in the outbox.
 */
export function configuredReadiness(
  /** API_READINESS_DEPENDENCIES */
  counted: readonly ReadinessDependency[],
  checks: {
    readonly database: DependencyCheck;
    readonly redis: DependencyCheck | undefined;
    readonly smtp: DependencyCheck | undefined;
  },
  timeoutMs = READINESS_TIMEOUT_MS,
): Readiness {
  const { database, ...optional } = checks;
  return createReadiness(
    {
      database: { check: database, required: true },
      ...Object.fromEntries(
        Object.entries(optional).flatMap(([name, check]) =>
          check === undefined ? [] : [[name, { check, required: counted.some((each) => each === name) }]],
        ),
      ),
    },
    timeoutMs,
  );
}

async function answersWithin(check: DependencyCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    // A check that is late goes on, unawaited: one attempt, bounded by its own timeouts.
    return await Promise.race([check(timeoutMs).then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
