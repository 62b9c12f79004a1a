import { Writable } from "node:stream";
import pino, { type Logger } from "pino";

/** A logger at `debug` whose lines a test reads back, parsed, in the order they were written. */
export function capturedLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: "debug" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(
          ...String(chunk)
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line)),
        );
        done();
      },
    }),
  );
  return { log, lines };
}
