/**
 * A running estimate of how long an operation takes (an exponentially weighted mean), so that an answer which
 * must not be told apart from it can be made to take as long.
 */
export interface DurationEstimate {
  observe(milliseconds: number): void;
  /** Zero until something was observed. */
  milliseconds(): number;
}

export function createDurationEstimate(weight = 0.2): DurationEstimate {
  let estimate: number | undefined;
  return {
    observe(milliseconds) {
      estimate = estimate === undefined ? milliseconds : estimate + weight * (milliseconds - estimate);
    },
    milliseconds: () => estimate ?? 0,
  };
}

/** One estimate per operation name, created when first asked for. */
export function createDurationEstimates(): (operation: string) => DurationEstimate {
  const estimates = new Map<string, DurationEstimate>();
  return (operation) => {
    let estimate = estimates.get(operation);
    if (!estimate) {
      estimate = createDurationEstimate();
      estimates.set(operation, estimate);
    }
    return estimate;
  };
}
