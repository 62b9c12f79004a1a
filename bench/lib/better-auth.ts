import { join } from "node:path";
import { createBenchDatabase } from "./database.ts";
import { BENCH_PASSWORD } from "./fixtures.ts";
import type { LoadShape } from "./load.ts";
import { freePort, type Started, startProgram } from "./processes.ts";
import type { Row } from "./report.ts";
import { microsPerRequest } from "./variant-cost.ts";

/** The rows measured on Better Auth (rivals/better-auth-server.ts), each named for the Latchkey row it compares with. */
export const BETTER_AUTH_ROWS = {
  "Better Auth get-session": "GET /user",
  "Better Auth sign-in": "password grant",
} as const;
export type BetterAuthRow = keyof typeof BETTER_AUTH_ROWS;

/** What its scenarios need: its users' addresses, and a signed-in session cookie of each. */
export interface BetterAuthFixtures {
  readonly emails: readonly string[];
  readonly cookies: readonly string[];
}

/** Better Auth's server, on a database of its own (`<bench database>_better_auth`) made afresh. */
export async function startBetterAuth(options: {
  readonly adminUrl: string;
  readonly database: string;
  readonly poolSize: number;
  readonly cwd: string;
  readonly entry: string;
  readonly nodeOptions: readonly string[];
}): Promise<Started> {
  const databaseUrl = await createBenchDatabase(options.adminUrl, options.database);
  const port = await freePort();
  return startProgram({
    name: "better-auth",
    entry: options.entry,
    nodeOptions: options.nodeOptions,
    cwd: options.cwd,
    port,
    readyPath: "/ready",
    env: { PORT: String(port), DATABASE_URL: databaseUrl, POOL_SIZE: String(options.poolSize), NODE_ENV: "production" },
  });
}

/** `count` users signed up through Better Auth at `url`, each with the session its sign-up made. */
export async function signUpUsers(url: string, count: number): Promise<BetterAuthFixtures> {
  const emails = Array.from({ length: count }, (_, index) => `bench-rival-${index}@example.com`);
  const cookies: string[] = [];
  // One at a time: each is a hash, and nothing bounds Better Auth's hashing.
  for (const email of emails) cookies.push(await signUp(url, email));
  return { emails, cookies };
}

/**
 * Signs `email` up (Better Auth signs the new user in): the session cookie it sets, as a Cookie header's value.
 * From its own origin: Node's fetch says it is a browser's (`Sec-Fetch-Mode`), and Better Auth wants a browser's
 * requests to name their origin. The load generator's requests do not look like a browser's.
 */
async function signUp(url: string, email: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email, password: BENCH_PASSWORD, name: email }),
  });
  const cookie = response.headers.getSetCookie().find((each) => each.startsWith("better-auth.session_token="));
  await response.body?.cancel();
  if (!response.ok || !cookie) throw new Error(`Better Auth's sign-up answered ${response.status} without a session`);
  return cookie.split(";")[0]!;
}

/** Its session read: one request per session, fixed, as GET /user's (scenarios.getUser). */
export function getSession({ cookies }: BetterAuthFixtures): LoadShape {
  return {
    requests: cookies.map((cookie) => ({ method: "GET", path: "/api/auth/get-session", headers: { cookie } })),
  };
}

/** Its email sign-in, round robin over its users, as the password grant's. */
export function signIn({ emails }: BetterAuthFixtures): LoadShape {
  let next = 0;
  return {
    requests: [
      {
        method: "POST",
        path: "/api/auth/sign-in/email",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ email: emails[next++ % emails.length], password: BENCH_PASSWORD }),
        }),
      },
    ],
  };
}

export const entryOf = (benchDirectory: string) => join(benchDirectory, "rivals", "better-auth-server.ts");

const micros = (row: Row) => microsPerRequest(row.process.cpuPercent, row)?.toFixed(0) ?? "";

/**
 * Latchkey's rows against Better Auth's at each concurrency where both ran: their rates, Latchkey's as a multiple
 * of Better Auth's (the ratio of their ratios to the same ceiling, so that the machine's drift between the two rows
 * cancels), and each server's CPU per request. Empty when no pair ran.
 */
export function betterAuthTable(rows: readonly Row[]): string {
  const lines = rows.flatMap((rival) => {
    const ours = rows.find(
      (row) => row.name === BETTER_AUTH_ROWS[rival.name as BetterAuthRow] && row.concurrency === rival.concurrency,
    );
    if (!ours?.ceiling || !rival.ceiling) return [];
    const times = ours.ceiling.ratio / rival.ceiling.ratio;
    const rates = [ours.load.requestsPerSecond, rival.load.requestsPerSecond].map((rate) => rate.toFixed(0));
    return [
      `| ${[ours.name, rival.name, rival.concurrency, ...rates, `${times.toFixed(1)}×`, micros(ours), micros(rival)].join(" | ")} |`,
    ];
  });
  if (lines.length === 0) return "";
  return [
    "| Latchkey | Better Auth | conc. | Latchkey req/s | Better Auth req/s | Latchkey ÷ Better Auth | Latchkey µs/req | Better Auth µs/req |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
    ...lines,
  ].join("\n");
}
