import type { HookFunctionStore } from "../../../ports/stores.ts";

/** A database function as a test defines it: takes the payload, returns the answer; what it throws, it raised. */
export type InMemoryHookFunction = (payload: unknown) => unknown;

/** An error a function raises in memory, with the SQLSTATE a database would report (P0001 for a RAISE). */
export class RaisedInFunction extends Error {
  constructor(
    message: string,
    readonly code = "P0001",
  ) {
    super(message);
  }
}

/**
 * Hook functions in memory, by `schema.name`: a test defines them (defineHookFunction). The payload goes through
 * JSON both ways, as through jsonb.
 */
export const inMemoryHookFunctions = (functions: Map<string, InMemoryHookFunction>): HookFunctionStore => ({
  async call({ schema, name, payload }) {
    const fn = functions.get(`${schema}.${name}`);
    if (fn === undefined) {
      return { ok: false, code: "42883", message: `function ${schema}.${name}(jsonb) does not exist` };
    }
    try {
      const answer = await fn(JSON.parse(payload));
      return { ok: true, answer: answer === undefined ? null : JSON.parse(JSON.stringify(answer)) };
    } catch (error) {
      const code = error instanceof RaisedInFunction ? error.code : "P0001";
      return { ok: false, code, message: error instanceof Error ? error.message : String(error) };
    }
  },
});
