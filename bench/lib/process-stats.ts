import { readdirSync, readFileSync, writeFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime: USER_HZ, 100 on every Linux Node supports. */
const TICKS_PER_SECOND = 100;
const SAMPLE_EVERY_MS = 50;

export interface ProcessFigures {
  /** The largest resident set seen while sampling, in MiB. */
  readonly peakRssMiB: number;
  /** CPU time over wall time: 100 is one core busy all the time. */
  readonly cpuPercent: number;
  /** The same for PostgreSQL (all its processes), when it runs on this machine. */
  readonly postgresCpuPercent?: number | null;
}

/**
 * Watches one process through /proc while a load runs. The kernel's own high-water mark (VmHWM) is reset first
 * where allowed, so a spike between two samples is not missed; sampling VmRSS covers kernels that refuse the reset.
 */
export function watchProcess(pid: number): { stop(): ProcessFigures } {
  const resetHighWaterMark = tryWrite(`/proc/${pid}/clear_refs`, "5");
  const startedAt = performance.now();
  const startTicks = cpuTicks(pid);
  let sampledPeakKiB = residentKiB(pid).current;
  const sampler = setInterval(() => {
    sampledPeakKiB = Math.max(sampledPeakKiB, residentKiB(pid).current);
  }, SAMPLE_EVERY_MS);
  return {
    stop() {
      clearInterval(sampler);
      const resident = residentKiB(pid);
      const peakKiB = Math.max(sampledPeakKiB, resident.current, resetHighWaterMark ? resident.highWaterMark : 0);
      const seconds = (performance.now() - startedAt) / 1000;
      const cpuSeconds = (cpuTicks(pid) - startTicks) / TICKS_PER_SECOND;
      return { peakRssMiB: peakKiB / 1024, cpuPercent: (100 * cpuSeconds) / seconds };
    },
  };
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name, in parentheses, may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of stat(5); the third field after the name is field 3, so 14 is index 11.
  return Number(fields[11]) + Number(fields[12]);
}

/** The resident set now and its high-water mark (VmRSS, VmHWM), in KiB. */
export function residentKiB(pid: number): { current: number; highWaterMark: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { current: field("VmRSS"), highWaterMark: field("VmHWM") };
}

function tryWrite(path: string, text: string): boolean {
  try {
    writeFileSync(path, text);
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU of every process named `postgres` on this machine (the server and its backends), while a load runs: what
 * each request costs the database. Null where PostgreSQL runs elsewhere or /proc cannot tell.
 */
export function watchPostgres(): { stop(): number | null } {
  const startedAt = performance.now();
  const before = postgresTicks();
  return {
    stop() {
      const after = postgresTicks();
      if (before.size === 0) return null;
      let ticks = 0;
      // Backends that started during the load count from zero; those that ended are lost (a pool keeps its own).
      for (const [pid, total] of after) ticks += total - (before.get(pid) ?? 0);
      return (100 * ticks) / TICKS_PER_SECOND / ((performance.now() - startedAt) / 1000);
    },
  };
}

function postgresTicks(): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      found.set(pid, cpuTicks(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
