import type { Logger } from "pino";

/** One line when a dependency stops answering and one when it is back, whoever notices and however often. */
export interface OutageLog {
  /** Logs a warning at the first call of an outage; later calls log nothing until `up`. */
  down(error: unknown): void;
  /** Logs, once and at `info`, how long the outage lasted; nothing when there was none. */
  up(): void;
}

export interface OutageLogOptions {
  /** On both lines: what the dependency is and where, never with credentials (`{ redis: "host:6379" }`). */
  readonly fields: Record<string, string>;
  /** The warning: what cannot be reached, and what the server does meanwhile. */
  readonly downMessage: string;
  /** The recovery line, given how long the outage lasted (`"4.2 s"`). */
  readonly upMessage: (downFor: string) => string;
  readonly now?: () => number;
}

export function createOutageLog(log: Logger, options: OutageLogOptions): OutageLog {
  const now = options.now ?? Date.now;
  let since: number | undefined;
  return {
    down(error) {
      if (since !== undefined) return;
      since = now();
      log.warn({ ...options.fields, ...failureFields(error) }, options.downMessage);
    },
    up() {
      if (since === undefined) return;
      const downMs = now() - since;
      since = undefined;
      log.info({ ...options.fields, down_ms: downMs }, options.upMessage(`${(downMs / 1000).toFixed(1)} s`));
    },
  };
}

const BUG_TYPES = [TypeError, RangeError, ReferenceError, SyntaxError];

/**
 * A log line's fields for a dependency's failure. One that does not answer is expected, and its stack (socket
 * internals) says nothing: the line carries the message (whose wrappers repeat their cause's) and the system or
 * SQLSTATE code of the innermost cause, never the error's other properties (a driver's error may hold its
 * connection, with its secrets). Only an error that is a bug of ours gets its stack.
 */
export function failureFields(error: unknown): Record<string, unknown> {
  const chain: unknown[] = [];
  for (let link = error; link !== undefined && chain.length < 5; link = (link as { cause?: unknown }).cause) {
    chain.push(link);
    if (!(link instanceof Error)) break;
  }
  if (chain.some((link) => BUG_TYPES.some((type) => link instanceof type))) return { err: error };
  const innermost = chain.at(-1);
  const code = (innermost as { code?: unknown } | undefined)?.code;
  return {
    error: error instanceof Error ? error.message : String(error),
    ...(typeof code === "string" ? { code } : {}),
  };
}
