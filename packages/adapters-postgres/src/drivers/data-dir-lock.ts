import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Refused: another process, or this one, has the embedded database's data directory open. */
export class EmbeddedDatabaseInUseError extends Error {
  override readonly name = "EmbeddedDatabaseInUseError";

  constructor(
    /** The data directory, absolute. */
    readonly dataDir: string,
    /** The process that holds it: this one's own pid when it is this process. */
    readonly pid: number,
  ) {
    super(
      pid === process.pid
        ? `the embedded database at ${dataDir} is already open in this process (pid ${pid}): close it before opening it again`
        : `the embedded database at ${dataDir} is in use by another Latchkey process (pid ${pid}): stop that server, or start this one in another working directory or with DATABASE_URL set`,
    );
  }
}

export interface DataDirLock {
  /** Deletes the lock file if it is still this holder's; idempotent. */
  release(): Promise<void>;
}

/** Lock files held by this process, which a second opener in it is refused without reading them. */
const heldHere = new Set<string>();

// Rounds of create / inspect / remove-stale before giving up: two suffice for two racing processes.
const ATTEMPTS = 3;
// How long an unreadable lock file gets to be written before it counts as a crash's leftover.
const SETTLE_MS = 100;

/**
 * Takes `<dataDir>.lock` for this process: a file created exclusively holding its pid and start time. PGlite
 * does not lock its directory (its postmaster.pid names a fake pid, -42), and two instances on one directory
 * each cache pages and overwrite the other's writes. A lock whose process is gone (a crash, a SIGKILL), or that
 * cannot be read, is taken over; one whose process runs, or that this process holds, refuses with
 * EmbeddedDatabaseInUseError.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  const path = `${dir}.lock`;
  if (heldHere.has(path)) throw new EmbeddedDatabaseInUseError(dir, process.pid);
  // Reserved before the file exists, so that a second opener here never reads this process's own fresh lock.
  heldHere.add(path);
  const record = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), id: randomUUID() })}\n`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await acquire(dir, path, record);
  } catch (error) {
    heldHere.delete(path);
    throw error;
  }
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= (async () => {
        try {
          if ((await readIfPresent(path)) === record) await unlinkIfPresent(path);
        } finally {
          heldHere.delete(path);
        }
      })()),
  };
}

async function acquire(dir: string, path: string, record: string): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (await createExclusive(path, record)) return;
    const holder = await readHolder(path);
    if (holder === undefined) continue;
    if (holder.pid !== undefined && isRunning(holder.pid)) throw new EmbeddedDatabaseInUseError(dir, holder.pid);
    await removeStale(path, holder.text);
  }
  throw new Error(`cannot lock the embedded database at ${dir}: ${path} kept changing; try again`);
}

async function createExclusive(path: string, record: string): Promise<boolean> {
  try {
    await writeFile(path, record, { flag: "wx" });
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    throw error;
  }
}

interface Holder {
  readonly text: string;
  /** Absent when the file is not a lock this code wrote. */
  readonly pid: number | undefined;
}

async function readHolder(path: string): Promise<Holder | undefined> {
  let text = await readIfPresent(path);
  if (text === undefined) return undefined;
  if (pidIn(text) === undefined) {
    // Perhaps created a moment ago and not yet written: look again before calling it a leftover.
    await sleep(SETTLE_MS);
    text = await readIfPresent(path);
    if (text === undefined) return undefined;
  }
  return { text, pid: pidIn(text) };
}

function pidIn(text: string): number | undefined {
  try {
    const pid: unknown = JSON.parse(text)?.pid;
    // 0 and negative pids would signal process groups in `isRunning`.
    return typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  // This process holds no lock on this directory (see heldHere): a lock with its pid is a former process's that
  // had the same pid, as a container's first process has on every start.
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return codeOf(error) !== "ESRCH";
  }
}

/**
 * Removes the lock file if it still holds `staleText`. Moving it to a name of its own first means that of two
 * processes that both found it stale, one moves it and the other finds nothing; if the other instead moved the
 * winner's new lock, it sees that from the content and puts it back. Either way the loser's next exclusive
 * create fails on the winner's lock, which runs, and it refuses. Not covered: a third process whose first create
 * lands in the microseconds the winner's lock is moved away also wins; servers started by hand are never that close.
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const moved = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, moved);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return;
    throw error;
  }
  if ((await readFile(moved, "utf8")) === staleText) await unlink(moved);
  else await rename(moved, path);
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error;
  }
}

function codeOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}
