import autocannon from "autocannon";
import pg from "pg";
import { refreshToken } from "./scenarios.ts";

/** What the clean-up soak saw: the growth, what was left once the clean-up had run, and what refreshes cost meanwhile. */
export interface SoakFigures {
  readonly sessions: number;
  readonly refreshes: number;
  /** Refresh tokens in the table after the refreshes, and once the clean-up had run on them. */
  readonly rowsGrown: number;
  readonly rowsLeft: number;
  /** Tokens created after the aging: a day young, which the clean-up keeps. */
  readonly rowsYoung: number;
  readonly cleanSeconds: number;
  readonly deletedPerSecond: number;
  /** Refreshes per second over the same time, with nothing to clean, and while the clean-up took the backlog. */
  readonly quietRate: number;
  readonly cleaningRate: number;
  /** Rows deleted a second while those refreshes ran. */
  readonly deletedPerSecondInWindow: number;
  readonly failures: number;
}

export interface SoakOptions {
  /** A server with DB_CLEANUP_ENABLED, on `databaseUrl`, its tables under `namespace`. */
  readonly url: string;
  readonly databaseUrl: string;
  readonly namespace: string;
  /** One unused refresh token per session. */
  readonly refreshTokens: readonly string[];
  readonly refreshes: number;
  readonly connections: number;
  /** The two timed refresh runs, quiet and while cleaning. */
  readonly windowSeconds: number;
  readonly log: (message: string) => void;
}

/**
 * `refreshes` refreshes over the sessions, each token used once, with the clean-up on: nothing is stale yet (rotated
 * tokens are kept a day), so the table grows by one row a refresh. Then a day passes, as far as the tokens know (their
 * creation moved back 25 hours in one statement), and the clean-up, every instance's background passes, takes the
 * backlog while refreshes go on; the soak waits until only a day's tokens are left: each session's current one, and
 * those rotated since the aging.
 */
export async function soakCleanup(options: SoakOptions): Promise<SoakFigures> {
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  const table = (name: string) => client.escapeIdentifier(`${options.namespace}${name}`);
  const tokens = table("refresh_tokens");
  const count = async (where = "true", from = tokens) =>
    Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${from} WHERE ${where}`)).rows[0]!.n);
  try {
    const pool = [...options.refreshTokens];
    const shape = refreshToken(pool);
    options.log(`bench: cleanup soak, ${options.refreshes} refreshes over ${pool.length} sessions`);
    const grown = await fire(options.url, shape.requests, options.connections, { amount: options.refreshes });
    const rowsGrown = await count();

    const quiet = await fire(options.url, shape.requests, options.connections, { duration: options.windowSeconds });
    // Taken before the statement: a token an answer still in flight writes meanwhile is either aged by it or younger.
    const agedAt = new Date();
    const agedAtMs = Date.now();
    await client.query(`UPDATE ${tokens} SET created_at = created_at - interval '25 hours'`);
    // The aging's own dead rows are the soak's doing, not the clean-up's: vacuumed before the refreshes measure.
    await client.query(`VACUUM ${tokens}`);
    options.log(
      `bench: cleanup soak, ${rowsGrown} rows aged a day and vacuumed; refreshes go on while the clean-up runs`,
    );

    // Aged tokens are a day older than the aging; a token an answer in flight wrote as the aging ran may be a
    // moment older than it, and is not. The clean-up is done once no aged token is left but one a session (its
    // current one, or the parent of its first young one); the fixtures' users have a session each besides the soak's.
    const aged = `created_at < '${new Date(agedAt.getTime() - 3_600_000).toISOString()}'`;
    const sessions = await count("true", table("sessions"));
    const cleaning = fire(options.url, shape.requests, options.connections, { duration: options.windowSeconds });
    let doneAtMs: number | undefined;
    let agedAtWindowEnd: number | undefined;
    void cleaning.then(async () => {
      agedAtWindowEnd = await count(aged);
    });
    while (doneAtMs === undefined || agedAtWindowEnd === undefined) {
      if (doneAtMs === undefined && (await count(aged)) <= sessions) doneAtMs = Date.now();
      if (Date.now() - agedAtMs > 30 * 60_000) throw new Error("the clean-up left aged tokens after 30 minutes");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const window = await cleaning;
    const cleanSeconds = (doneAtMs - agedAtMs) / 1000;
    const rowsLeft = await count();
    const rowsYoung = await count(`NOT (${aged})`);
    // Rows the clean-up deleted a second while the refreshes ran (all of them, if it was done before their end).
    const deletedInWindow = rowsGrown - Math.max(agedAtWindowEnd, sessions);
    return {
      sessions,
      refreshes: options.refreshes,
      rowsGrown,
      rowsLeft,
      rowsYoung,
      cleanSeconds,
      deletedPerSecond: (rowsGrown - sessions) / cleanSeconds,
      quietRate: quiet.requests.total / options.windowSeconds,
      cleaningRate: window.requests.total / options.windowSeconds,
      deletedPerSecondInWindow: deletedInWindow / Math.min(options.windowSeconds, cleanSeconds),
      failures: [grown, quiet, window].reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0),
    };
  } finally {
    await client.end();
  }
}

function fire(
  url: string,
  requests: autocannon.Request[],
  connections: number,
  until: { amount: number } | { duration: number },
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, requests, ...until }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export function soakTable(figures: SoakFigures): string {
  const round = (value: number) => Math.round(value).toLocaleString("en-US");
  // What a deleted row costs the refreshes running beside it: refreshes not served per row deleted.
  const costPerRow = Math.max(0, figures.quietRate - figures.cleaningRate) / figures.deletedPerSecondInWindow;
  return [
    "| sessions | refreshes | token rows after them | left after clean-up (of them a day young) | clean-up s | rows deleted/s (while refreshing) | refresh/s quiet | refresh/s while cleaning | ratio | refreshes lost per 100 rows deleted |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    `| ${round(figures.sessions)} | ${round(figures.refreshes)} | ${round(figures.rowsGrown)} | ${round(figures.rowsLeft)} (${round(figures.rowsYoung)}) | ${figures.cleanSeconds.toFixed(1)} | ${round(figures.deletedPerSecond)} (${round(figures.deletedPerSecondInWindow)}) | ${round(figures.quietRate)} | ${round(figures.cleaningRate)} | ${(figures.cleaningRate / figures.quietRate).toFixed(2)} | ${(costPerRow * 100).toFixed(1)} |`,
  ].join("\n");
}
