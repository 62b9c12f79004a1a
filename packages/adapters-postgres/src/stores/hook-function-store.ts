import type { HookFunctionOutcome, HookFunctionStore } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import type { Database } from "../database.ts";
import type { Atomic } from "./atomic.ts";
import { asServiceFailure } from "./service-failure.ts";

type Rows<Row> = { rows: readonly Row[] };

/**
 * Hook functions, called as GoTrue calls them: `SELECT schema.name($1)` with the payload as jsonb, under a
 * statement_timeout of the hook's own (GoTrue's: 2 s), in the caller's transaction or in one of their own (atomic).
 *
 * The call runs inside a savepoint: what the function raises, or its timeout, undoes only the call, which comes
 * back as an outcome for the hook caller to turn into the client's error; the timeout it set goes with it. After a
 * call that succeeded, the transaction's own statement_timeout (a request's deadline, drivers/time-budget.ts) is
 * put back, and the hook's is never longer than it.
 */
export function createHookFunctionStore(atomic: Atomic): HookFunctionStore {
  return {
    call: ({ schema, name, payload, timeoutMs }) =>
      atomic(async (db) => {
        const outer = await statementTimeoutMs(db);
        const ms = Math.max(1, Math.ceil(outer === 0 ? timeoutMs : Math.min(timeoutMs, outer)));
        await db.execute(sql.raw("SAVEPOINT latchkey_hook"));
        await db.execute(sql.raw(`SET LOCAL statement_timeout = ${ms}`));
        try {
          const text = await callFunction(db, { schema, name, payload });
          await db.execute(sql.raw(`SET LOCAL statement_timeout = ${outer}`));
          await db.execute(sql.raw("RELEASE SAVEPOINT latchkey_hook"));
          return { ok: true, answer: parsedAnswer(text) };
        } catch (error) {
          const raised = raisedBy(error);
          // Cancelled by the work's own deadline rather than the hook's limit: the request ran out of time.
          const deadline = raised?.code === "57014" && ms < timeoutMs;
          if (raised === null || deadline) throw error;
          await db.execute(sql.raw("ROLLBACK TO SAVEPOINT latchkey_hook"));
          return raised;
        }
      }),
  };
}

/** current_setting's units (PostgreSQL writes a time setting in the largest unit that divides it). */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** The statement_timeout in force, in milliseconds (0: none). current_setting, not pg_settings: a view, far slower. */
async function statementTimeoutMs(db: Database): Promise<number> {
  const { rows } = (await db.execute(sql`SELECT current_setting('statement_timeout') AS setting`)) as unknown as Rows<{
    setting: string;
  }>;
  const parsed = /^(\d+)(ms|s|min|h|d)?$/.exec(rows[0]?.setting ?? "0");
  return parsed ? Number(parsed[1]) * (UNIT_MS[parsed[2] ?? "ms"] ?? 1) : 0;
}

/** The function's result as text (null for NULL): the drivers differ in how they return json and jsonb. */
async function callFunction(
  db: Database,
  call: { schema: string; name: string; payload: string },
): Promise<string | null> {
  const fn = sql`${sql.identifier(call.schema)}.${sql.identifier(call.name)}`;
  const { rows } = (await db.execute(sql`SELECT ${fn}(${call.payload}::jsonb)::text AS answer`)) as unknown as Rows<{
    answer: string | null;
  }>;
  return rows[0]?.answer ?? null;
}

/**
 * The result as JSON; a function of another type (text, void) may return what is no JSON: that text, which the hook
 * caller refuses as it refuses any answer that is no JSON object. Parsed only once the call is settled, so that
 * nothing thrown here leaves the savepoint open and the hook's timeout on the caller's transaction.
 */
function parsedAnswer(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * What the function raised or ran into, as an outcome: an error of the SQL it ran, with its SQLSTATE. A database
 * that cannot serve (a broken connection, a shutdown) is no outcome of the hook's: null, and it is thrown as such.
 */
function raisedBy(error: unknown): (HookFunctionOutcome & { ok: false }) | null {
  const cause: unknown = error instanceof DrizzleQueryError ? error.cause : error;
  const code = typeof cause === "object" && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return null;
  // A statement_timeout is the hook's own limit here; other failures of the database itself are not the hook's.
  if (code !== "57014" && asServiceFailure(cause) !== cause) return null;
  return { ok: false, code, message: cause instanceof Error ? cause.message : "the hook function failed" };
}
