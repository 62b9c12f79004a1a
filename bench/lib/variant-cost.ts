import type { Row } from "./report.ts";

/** CPU microseconds per request of a row: its CPU (100 = one core) over its rate. */
export const microsPerRequest = (cpuPercent: number | null | undefined, row: Row): number | undefined =>
  cpuPercent == null || row.load.requestsPerSecond === 0
    ? undefined
    : (cpuPercent / 100 / row.load.requestsPerSecond) * 1_000_000;

const micros = (value: number | undefined) => (value === undefined ? "" : value.toFixed(0));
const extra = (variant: number | undefined, plain: number | undefined) =>
  variant === undefined || plain === undefined ? "" : `${variant >= plain ? "+" : ""}${(variant - plain).toFixed(0)}`;

/** The plain row a variant's row is of (`refresh` of `refresh hook pg`): the longest row name its name extends. */
function plainOf(row: Row, rows: readonly Row[]): Row | undefined {
  const candidates = rows.filter(
    (other) =>
      other.ceiling !== undefined && other.concurrency === row.concurrency && row.name.startsWith(`${other.name} `),
  );
  return candidates.sort((a, b) => b.name.length - a.name.length)[0];
}

/**
 * What each variant row (a key ring, tracing, metrics, a hook) costs a request against its plain row measured in
 * the same run at the same concurrency: their rates' ratio, and the CPU per request of the server and of
 * PostgreSQL, each plain and the variant's extra. Empty when no variant has its plain row in the run.
 */
export function variantCostTable(rows: readonly Row[]): string {
  const lines = rows.flatMap((row) => {
    const plain = row.ceiling === undefined ? undefined : plainOf(row, rows);
    if (plain === undefined) return [];
    const server = [
      microsPerRequest(row.process.cpuPercent, row),
      microsPerRequest(plain.process.cpuPercent, plain),
    ] as const;
    const postgres = [
      microsPerRequest(row.process.postgresCpuPercent, row),
      microsPerRequest(plain.process.postgresCpuPercent, plain),
    ] as const;
    const ratio = row.load.requestsPerSecond / plain.load.requestsPerSecond;
    const cells = [row.name, row.concurrency, plain.name, ratio.toFixed(2), micros(server[1]), extra(...server)];
    return [`| ${[...cells, micros(postgres[1]), extra(...postgres)].join(" | ")} |`];
  });
  if (lines.length === 0) return "";
  return [
    "| variant | conc. | plain row | req/s of plain | server µs/req plain | server µs/req extra | PG µs/req plain | PG µs/req extra |",
    "|---|---:|---|---:|---:|---:|---:|---:|",
    ...lines,
  ].join("\n");
}
