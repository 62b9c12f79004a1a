import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir } from "../src/drivers/data-dir-lock.ts";
import { createPostgres, EmbeddedDatabaseInUseError, type Postgres } from "../src/index.ts";
import { prefillDataDir } from "../src/testing/index.ts";

const repo = join(import.meta.dirname, "..", "..", "..");
const tsxLoader = pathToFileURL(join(repo, "node_modules", "tsx", "dist", "loader.mjs")).href;
const lockModule = pathToFileURL(join(import.meta.dirname, "..", "src", "drivers", "data-dir-lock.ts")).href;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "latchkey-lock-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Where a cluster is, as after a first start (whose initdb is not what these tests are about). */
async function freshDataDir(): Promise<string> {
  const dataDir = join(await tempDir(), "pgdata");
  prefillDataDir(dataDir);
  return dataDir;
}

async function open(dataDir: string): Promise<Postgres> {
  const postgres = await createPostgres({ embeddedDataDir: dataDir, namespace: "lk_", maxPoolSize: 0 });
  cleanups.push(() => postgres.close());
  return postgres;
}

function node(args: string[]): ChildProcess {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  });
  return child;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = node(["-e", ""]);
  await once(child, "exit");
  return child.pid as number;
}

const lockRecord = (pid: number) => `${JSON.stringify({ pid, startedAt: new Date().toISOString(), id: "test" })}\n`;

function inUseByAnother(dataDir: string, pid: number): string {
  return `the embedded database at ${dataDir} is in use by another Latchkey process (pid ${pid}): stop that server, or start this one in another working directory or with DATABASE_URL set`;
}

describe("the embedded database's lock", () => {
  it("refuses a second opener while the first is open, and lets it open once the first closes", async () => {
    const dataDir = await freshDataDir();
    const first = await open(dataDir);
    expect(JSON.parse(readFileSync(`${dataDir}.lock`, "utf8"))).toMatchObject({ pid: process.pid });

    const refused = open(dataDir);
    await expect(refused).rejects.toThrow(EmbeddedDatabaseInUseError);
    await expect(refused).rejects.toThrow(
      `the embedded database at ${dataDir} is already open in this process (pid ${process.pid}): close it before opening it again`,
    );

    await first.close();
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    const second = await open(dataDir);
    await second.ping();
  });

  it("refuses while another running process holds the lock, and takes it over once that process is gone", async () => {
    const dataDir = await freshDataDir();
    const holder = node(["-e", "setTimeout(() => {}, 60_000)"]);
    const record = lockRecord(holder.pid as number);
    await writeFile(`${dataDir}.lock`, record);

    const refused = open(dataDir);
    await expect(refused).rejects.toThrow(EmbeddedDatabaseInUseError);
    await expect(refused).rejects.toThrow(inUseByAnother(dataDir, holder.pid as number));
    await expect(refused).rejects.toMatchObject({ dataDir, pid: holder.pid });
    expect(readFileSync(`${dataDir}.lock`, "utf8")).toBe(record);

    holder.kill("SIGKILL");
    await once(holder, "exit");
    const postgres = await open(dataDir);
    await postgres.ping();
  });

  it("takes over a lock left by a process that died without closing", async () => {
    const dataDir = await freshDataDir();
    await writeFile(`${dataDir}.lock`, lockRecord(await deadPid()));

    const postgres = await open(dataDir);
    expect(JSON.parse(readFileSync(`${dataDir}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    await postgres.close();
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
  });

  it("takes over a lock file it cannot read as one", async () => {
    const dataDir = await freshDataDir();
    await writeFile(`${dataDir}.lock`, "not a lock\n");
    const postgres = await open(dataDir);
    expect(JSON.parse(readFileSync(`${dataDir}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
    await postgres.close();

    // The same decision without starting PGlite each time; 0 and negative pids would name process groups.
    for (const garbage of ["", "{", "null\n", '{"pid":0}\n', '{"pid":-1}\n', '{"pid":"1"}\n', '{"pid":1.5}\n']) {
      await writeFile(`${dataDir}.lock`, garbage);
      const lock = await lockDataDir(dataDir);
      expect(JSON.parse(readFileSync(`${dataDir}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
      await lock.release();
    }
  });

  it("lets exactly one of two processes racing over a stale lock take it; the other refuses", async () => {
    const contender = join(await tempDir(), "contender.mjs");
    await writeFile(
      contender,
      `import { lockDataDir } from ${JSON.stringify(lockModule)};
const [dataDir, startAt] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Number(startAt) - Date.now()));
try {
  await lockDataDir(dataDir);
  console.log("held");
  setInterval(() => {}, 60_000);
} catch (error) {
  console.log(error.name);
}
`,
    );
    const stale = lockRecord(await deadPid());
    const dataDirs = await Promise.all([1, 2, 3, 4, 5].map(async () => join(await tempDir(), "pgdata")));
    for (const dataDir of dataDirs) await writeFile(`${dataDir}.lock`, stale);
    // Every contender waits for the same moment, once all have loaded.
    const startAt = String(Date.now() + 4_000);
    const outcomes = await Promise.all(
      dataDirs.map((dataDir) =>
        Promise.all(
          [1, 2].map(async () => {
            const child = node(["--import", tsxLoader, contender, dataDir, startAt]);
            const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
            return line.toString().trim();
          }),
        ),
      ),
    );
    for (const outcome of outcomes) expect(outcome.sort()).toEqual(["EmbeddedDatabaseInUseError", "held"]);
  });
});
