import { describeIfAvailable } from "@latchkey/domain/testing";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPostgres, outboxChannel, type Postgres } from "../src/index.ts";
import {
  type BlockableRole,
  createBlockableRole,
  missingPostgresServer,
  randomNamespace,
  testDatabaseUrl,
} from "../src/testing/index.ts";

const url = testDatabaseUrl();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it holds, then returns how long that took; fails after `timeoutMs`. */
async function timeUntil(check: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(20);
  }
  return Date.now() - started;
}

// PGlite has no LISTEN connection to lose.
describeIfAvailable(missingPostgresServer(), "the LISTEN connection of node-postgres", () => {
  let observer: pg.Client;
  let role: BlockableRole;
  let postgres: Postgres;
  let stop: () => Promise<void>;
  const namespace = randomNamespace();
  const told: string[] = [];
  let wakeUps = 0;

  const notify = () => observer.query("select pg_notify($1, '')", [outboxChannel(namespace)]);

  beforeAll(async () => {
    observer = new pg.Client({ connectionString: url });
    await observer.connect();
    role = await createBlockableRole(url!);
    postgres = await createPostgres({
      url: role.url,
      namespace,
      maxPoolSize: 1,
      listenConnection: {
        lost: (error) => told.push(`lost: ${error.message}`),
        restored: () => told.push("restored"),
      },
    });
    stop = await postgres.onOutboxMessage(() => wakeUps++);
  });
  afterAll(async () => {
    await stop?.();
    await postgres?.close();
    await role?.drop();
    await observer?.end();
  });

  it("wakes the listener on a NOTIFY", async () => {
    const before = wakeUps;
    await notify();
    expect(await timeUntil(() => wakeUps > before, 1_000)).toBeLessThan(500);
  });

  it("listens again within a second of its connection being terminated, and wakes the listener once for what it missed", async () => {
    const terminated = await observer.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and query like 'LISTEN %'",
      [role.name],
    );
    expect(terminated.rowCount).toBe(1);
    const before = wakeUps;
    expect(await timeUntil(() => told.length === 2, 3_000)).toBeLessThan(1_500);
    expect(told).toEqual([
      expect.stringMatching(/^lost: terminating connection due to administrator command/),
      "restored",
    ]);
    expect(wakeUps).toBe(before + 1);

    await notify();
    expect(await timeUntil(() => wakeUps > before + 1, 1_000)).toBeLessThan(500);
    told.length = 0;
  });

  it("tells once of an outage of several seconds, and listens again within its backoff's cap (2 s) once the database is back", async () => {
    await role.block();
    // Attempts at 0.5, 1.5, 3.5, 5.5 and 7.5 s, each refused; without a cap the fifth would wait until 15.5 s.
    await sleep(8_000);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^lost: /);
    await role.unblock();
    expect(await timeUntil(() => told.length === 2, 5_000)).toBeLessThan(2_500);
    expect(told[1]).toBe("restored");

    const before = wakeUps;
    await notify();
    expect(await timeUntil(() => wakeUps > before, 1_000)).toBeLessThan(500);
  }, 20_000);
});
