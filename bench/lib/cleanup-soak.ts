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
  /**
   * Refreshes at a fixed rate, half the quiet one (a server not at its limit, as most are): their latency with
   * nothing to clean, and while the clean-up went on with the backlog; `backlogLasted`, whether it did to the end.
   */
  readonly pacedRate: number;
  readonly quietLatency: Latency;
  readonly cleaningLatency: Latency;
  readonly backlogLasted: boolean;
  readonly failures: number;
}

/** Milliseconds. */
interface Latency {
  readonly p50: number;
  readonly p99: number;
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
    const pacedRate = Math.round(quiet.requests.total / options.windowSeconds / 2);
    const paced = { duration: options.windowSeconds, overallRate: pacedRate };
    const quietPaced = await fire(options.url, shape.requests, options.connections, paced);
    // The quiet windows' refreshes added tokens too: every token there is when it runs is aged.
    const rowsAged = await count();
    const agedAt = await ageADay(client, tokens);
    const agedAtMs = agedAt.getTime();
    options.log(`bench: cleanup soak, ${rowsAged} rows aged a day; refreshes go on while the clean-up runs`);

    // Aged tokens are a day older than the aging; a token an answer in flight wrote as the aging ran may be a
    // moment older than it, and is not. The clean-up is done once no aged token is left but one a session (its
    // current one, or the parent of its first young one); the fixtures' users have a session each besides the soak's.
    const aged = `created_at < '${new Date(agedAt.getTime() - 3_600_000).toISOString()}'`;
    const sessions = await count("true", table("sessions"));
    // Watched through both windows and after them (a pg client runs one query at a time, in turn): whether more than
    // a token a session is aged, found through the index on creation, reading a thousand entries rather than the
    // table, so that watching costs the refreshes measured meanwhile nothing to speak of.
    const beyondSessions = () => moreAgedThan(client, tokens, aged, sessions);
    const done = whenCleaned(beyondSessions, agedAtMs);
    const window = await fire(options.url, shape.requests, options.connections, { duration: options.windowSeconds });
    const agedAtWindowEnd = await count(aged);
    const cleaningPaced = await fire(options.url, shape.requests, options.connections, paced);
    const backlogLasted = await beyondSessions();
    const doneAtMs = await done;
    const cleanSeconds = (doneAtMs - agedAtMs) / 1000;
    const rowsLeft = await count();
    // Rows the clean-up deleted a second while the refreshes ran (all of them, if it was done before their end).
    const deletedInWindow = rowsAged - Math.max(agedAtWindowEnd, sessions);
    return {
      sessions,
      refreshes: options.refreshes,
      rowsGrown,
      rowsLeft,
      rowsYoung: await count(`NOT (${aged})`),
      cleanSeconds,
      deletedPerSecond: (rowsAged - sessions) / cleanSeconds,
      quietRate: quiet.requests.total / options.windowSeconds,
      cleaningRate: window.requests.total / options.windowSeconds,
      deletedPerSecondInWindow: deletedInWindow / Math.min(options.windowSeconds, cleanSeconds),
      pacedRate,
      quietLatency: latencyOf(quietPaced),
      cleaningLatency: latencyOf(cleaningPaced),
      backlogLasted,
      failures: failuresOf([grown, quiet, window, quietPaced, cleaningPaced]),
    };
  } finally {
    await client.end();
  }
}

/** Every token a day and an hour older, as of the time returned, and the aging's own work put behind it. */
async function ageADay(client: pg.Client, tokens: string): Promise<Date> {
  // Taken before the statement: a token an answer still in flight writes meanwhile is either aged by it or younger.
  const agedAt = new Date();
  await client.query(`UPDATE ${tokens} SET created_at = created_at - interval '25 hours'`);
  // The aging's own dead rows and dirty pages are the soak's doing, not the clean-up's: vacuumed, and written out by
  // a checkpoint (else the refreshes measured next pay for it in full-page writes), before the refreshes measure.
  await client.query(`VACUUM ANALYZE ${tokens}`);
  await client.query("CHECKPOINT");
  return agedAt;
}

const failuresOf = (runs: readonly autocannon.Result[]) =>
  runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);

/** Whether more than `sessions` tokens are aged. */
async function moreAgedThan(client: pg.Client, tokens: string, aged: string, sessions: number): Promise<boolean> {
  const query = `SELECT 1 FROM ${tokens} WHERE ${aged} ORDER BY created_at OFFSET ${sessions} LIMIT 1`;
  return (await client.query(query)).rowCount === 1;
}

/** When no more than a token a session is aged: the clean-up is done. */
async function whenCleaned(beyondSessions: () => Promise<boolean>, sinceMs: number): Promise<number> {
  for (;;) {
    if (!(await beyondSessions())) return Date.now();
    if (Date.now() - sinceMs > 30 * 60_000) throw new Error("the clean-up left aged tokens after 30 minutes");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const latencyOf = (result: autocannon.Result): Latency => ({ p50: result.latency.p50, p99: result.latency.p99 });

function fire(
  url: string,
  requests: autocannon.Request[],
  connections: number,
  until: { amount: number } | { duration: number; overallRate?: number },
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
    "",
    "| refreshes at a fixed rate | p50 ms quiet | p50 ms while cleaning | p99 ms quiet | p99 ms while cleaning | backlog lasted the window |",
    "|---:|---:|---:|---:|---:|---|",
    `| ${round(figures.pacedRate)}/s | ${figures.quietLatency.p50} | ${figures.cleaningLatency.p50} | ${figures.quietLatency.p99} | ${figures.cleaningLatency.p99} | ${figures.backlogLasted ? "yes" : "no"} |`,
  ].join("\n");
}
