import type { LoadFigures } from "./load.ts";
import type { ProcessFigures } from "./process-stats.ts";

export interface Row {
  readonly name: string;
  /** Measured on another server than Latchkey (Better Auth): compared with Latchkey's rows, held to none of its targets. */
  readonly rival?: boolean;
  readonly concurrency: number;
  readonly load: LoadFigures;
  readonly process: ProcessFigures;
  /**
   * The ceiling this row is compared with, at the same concurrency: the median of the rounds' ratios to it, their
   * range, and the least ratio that meets the target.
   */
  readonly ceiling?: {
    readonly name: string;
    readonly ratio: number;
    readonly range: readonly [number, number];
    readonly target?: number;
  };
}

/** The middle item by `key` (the lower of the two middle ones for an even count). */
const middleBy = <T>(items: readonly T[], key: (item: T) => number): T =>
  [...items].sort((a, b) => key(a) - key(b))[Math.floor((items.length - 1) / 2)]!;

/**
 * One row of several rounds of the same load: the median round's load figures (by requests per second), the
 * highest peak memory, the mean CPU, and every failure.
 */
export function combineRounds(rounds: readonly Row[]): Row {
  const middle = middleBy(rounds, (round) => round.load.requestsPerSecond);
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const postgres = rounds
    .map((round) => round.process.postgresCpuPercent)
    .filter((value): value is number => typeof value === "number");
  return {
    ...middle,
    load: {
      ...middle.load,
      completed: rounds.reduce((sum, round) => sum + round.load.completed, 0),
      failures: rounds.reduce((sum, round) => sum + round.load.failures, 0),
    },
    process: {
      peakRssMiB: Math.max(...rounds.map((round) => round.process.peakRssMiB)),
      cpuPercent: mean(rounds.map((round) => round.process.cpuPercent)),
      ...(postgres.length > 0 ? { postgresCpuPercent: mean(postgres) } : {}),
    },
  };
}

/** A scenario's rounds, each measured right after a round of its ceiling, combined and compared with it. */
export function compareRounds(name: string, pairs: readonly { ceiling: Row; scenario: Row }[], target?: number): Row {
  const ratios = pairs.map((pair) => pair.scenario.load.requestsPerSecond / pair.ceiling.load.requestsPerSecond);
  return {
    ...combineRounds(pairs.map((pair) => pair.scenario)),
    name,
    ceiling: {
      name: pairs[0]!.ceiling.name,
      ratio: middleBy(ratios, (ratio) => ratio),
      range: [Math.min(...ratios), Math.max(...ratios)],
      ...(target === undefined ? {} : { target }),
    },
  };
}

/** Server memory at the highest concurrency: the bound, for every scenario of Latchkey's. */
const RSS_LIMIT_MIB = 150;
const RSS_LIMIT_AT = 64;

const fixed = (value: number, digits: number) => value.toFixed(digits);

function ratioOf(row: Row): number | undefined {
  return row.ceiling?.ratio;
}

/** Every target a row misses, as a sentence. */
export function misses(row: Row): string[] {
  const found: string[] = [];
  const ratio = ratioOf(row);
  if (row.ceiling?.target !== undefined && ratio !== undefined && ratio < row.ceiling.target) {
    found.push(
      `${row.name} at ${row.concurrency}: ${fixed(ratio, 2)} of ${row.ceiling.name}, target ≥ ${row.ceiling.target}`,
    );
  }
  if (!row.rival && row.ceiling && row.concurrency === RSS_LIMIT_AT && row.process.peakRssMiB > RSS_LIMIT_MIB) {
    found.push(
      `${row.name} at ${row.concurrency}: peak RSS ${fixed(row.process.peakRssMiB, 0)} MiB, target ≤ ${RSS_LIMIT_MIB}`,
    );
  }
  if (row.load.failures > 0) found.push(`${row.name} at ${row.concurrency}: ${row.load.failures} requests failed`);
  return found;
}

export function markdownTable(rows: readonly Row[]): string {
  const header = [
    "| | conc. | req/s | p50 ms | p99 ms | peak RSS MiB | CPU % | PG CPU % | ceiling | ratio | target |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ];
  const lines = rows.map((row) => {
    const ratio = ratioOf(row);
    const target = row.ceiling?.target;
    const verdict = target === undefined || ratio === undefined ? "" : `≥ ${target} ${ratio >= target ? "✓" : "✗"}`;
    return [
      "",
      row.name,
      row.concurrency,
      fixed(row.load.requestsPerSecond, 0),
      fixed(row.load.p50Ms, 1),
      fixed(row.load.p99Ms, 1),
      fixed(row.process.peakRssMiB, 0),
      fixed(row.process.cpuPercent, 0),
      row.process.postgresCpuPercent == null ? "" : fixed(row.process.postgresCpuPercent, 0),
      row.ceiling?.name ?? "",
      row.ceiling === undefined
        ? ""
        : `${fixed(row.ceiling.ratio, 2)} (${fixed(row.ceiling.range[0], 2)}–${fixed(row.ceiling.range[1], 2)})`,
      verdict,
      "",
    ]
      .join(" | ")
      .trim();
  });
  return [...header, ...lines].join("\n");
}
