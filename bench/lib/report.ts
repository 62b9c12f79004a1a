import type { LoadFigures } from "./load.ts";
import type { ProcessFigures } from "./process-stats.ts";

export interface Row {
  readonly name: string;
  readonly concurrency: number;
  readonly load: LoadFigures;
  readonly process: ProcessFigures;
  /** The ceiling this row is compared with, at the same concurrency, and the least ratio that meets the target. */
  readonly ceiling?: { readonly name: string; readonly requestsPerSecond: number; readonly target?: number };
}

/** Server memory at the highest concurrency: the bound, for every scenario. */
export const RSS_LIMIT_MIB = 150;
export const RSS_LIMIT_AT = 64;

const fixed = (value: number, digits: number) => value.toFixed(digits);

export function ratioOf(row: Row): number | undefined {
  return row.ceiling ? row.load.requestsPerSecond / row.ceiling.requestsPerSecond : undefined;
}

/** Every target a row misses, as a sentence. */
export function misses(row: Row): string[] {
  const found: string[] = [];
  const ratio = ratioOf(row);
  if (row.ceiling?.target !== undefined && ratio !== undefined && ratio < row.ceiling.target) {
    found.push(`${row.name} at ${row.concurrency}: ${fixed(ratio, 2)} of ${row.ceiling.name}, target ≥ ${row.ceiling.target}`);
  }
  if (row.ceiling && row.concurrency === RSS_LIMIT_AT && row.process.peakRssMiB > RSS_LIMIT_MIB) {
    found.push(`${row.name} at ${row.concurrency}: peak RSS ${fixed(row.process.peakRssMiB, 0)} MiB, target ≤ ${RSS_LIMIT_MIB}`);
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
      ratio === undefined ? "" : fixed(ratio, 2),
      verdict,
      "",
    ].join(" | ").trim();
  });
  return [...header, ...lines].join("\n");
}
