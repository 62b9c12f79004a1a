import type pg from "pg";
import { DeadlinePassed } from "./time-budget.ts";

/** SQLSTATE too_many_connections: the server's max_connections, or the role's or the database's limit, is reached. */
export const TOO_MANY_CONNECTIONS = "53300";
/** The first pause after a refusal for a full server, doubled after each one up to the longest. */
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 500;

const codeOf = (error: unknown): unknown =>
  typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;

export interface Acquirer {
  /** A connection checked out of the pool, or DeadlinePassed when none can be had by `deadlineAt`. */
  acquire(deadlineAt: number | undefined): Promise<pg.PoolClient>;
  /** Callers waiting because the server refused a connection for being full (pg-pool's own queue aside). */
  readonly waitingCount: () => number;
}

/**
 * Checks connections out of `pool` before a deadline. When PostgreSQL refuses a new connection for being full
 * (53300), the caller waits for one of the pool's connections to come back, or for a pause that doubles from 10 ms
 * to 500 ms when the pool holds none (other clients fill the server), and tries again, until its deadline; the
 * server's refusal is then the cause of its DeadlinePassed. Each connection that comes back wakes one waiter, so a
 * busy pool does not answer every release with a round of refused connection attempts. Other failures to connect
 * are the caller's at once: an unreachable server is not waited for.
 */
export function createAcquirer(pool: pg.Pool): Acquirer {
  const waiting: (() => void)[] = [];
  pool.on("release", () => waiting.shift()?.());

  const releaseOrPause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = waiting.indexOf(wake);
        if (index >= 0) waiting.splice(index, 1);
        resolve();
      }, ms);
      waiting.push(wake);
    });

  const acquire = async (deadlineAt: number | undefined): Promise<pg.PoolClient> => {
    let pauseMs = FIRST_PAUSE_MS;
    for (;;) {
      try {
        return await connectBefore(pool, deadlineAt);
      } catch (error) {
        if (codeOf(error) !== TOO_MANY_CONNECTIONS || deadlineAt === undefined) throw error;
        const leftMs = deadlineAt - Date.now();
        if (leftMs <= 0) {
          throw new DeadlinePassed("the database refused a connection for being full until the deadline", {
            cause: error,
          });
        }
        await releaseOrPause(Math.min(pauseMs, leftMs));
        pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
      }
    }
  };
  return { acquire, waitingCount: () => waiting.length };
}

/**
 * A connection of the pool, or DeadlinePassed when none comes by `deadlineAt`. One that comes later goes straight
 * back. (pg-pool's connectionTimeoutMillis bounds the wait too, but it is one figure for the whole pool.)
 */
function connectBefore(pool: pg.Pool, deadlineAt: number | undefined): Promise<pg.PoolClient> {
  if (deadlineAt === undefined) return pool.connect();
  const leftMs = deadlineAt - Date.now();
  if (leftMs <= 0) return Promise.reject(new DeadlinePassed("the deadline passed before a connection was asked for"));
  const connecting = pool.connect();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connecting.then(
        (client) => client.release(),
        () => undefined,
      );
      reject(new DeadlinePassed("no database connection was free before the deadline"));
    }, leftMs);
    connecting.then(
      (client) => {
        clearTimeout(timer);
        resolve(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
