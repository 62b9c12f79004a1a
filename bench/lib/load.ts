import autocannon from "autocannon";

export interface LoadFigures {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly completed: number;
  /** Answers other than 2xx, connection errors, timeouts and answers the scenario found wrong. */
  readonly failures: number;
}

/** One kind of request, as autocannon sends it; `reset` readies per-run state (a token pool, a counter). */
export interface LoadShape {
  readonly requests: autocannon.Request[];
  readonly reset?: () => void;
}

/** A warm-up, whose figures are dropped, then the measured run; `during` brackets the measured run only. */
export async function measureLoad<T>(
  url: string,
  shape: LoadShape,
  options: { connections: number; warmupSeconds: number; seconds: number },
  during: { start(): void; stop(): T },
): Promise<{ load: LoadFigures; watched: T }> {
  shape.reset?.();
  if (options.warmupSeconds > 0) await fire(url, shape, options.connections, options.warmupSeconds);
  during.start();
  const result = await fire(url, shape, options.connections, options.seconds);
  const watched = during.stop();
  const failures = result.non2xx + result.errors + result.timeouts + result.mismatches;
  return {
    load: {
      requestsPerSecond: result.requests.total / options.seconds,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      completed: result.requests.total,
      failures,
    },
    watched,
  };
}

function fire(url: string, shape: LoadShape, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, requests: shape.requests }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}
