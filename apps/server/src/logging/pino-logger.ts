import pino, { type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "../config/index.ts";

const SECRET_FIELDS = ["password", "nonce", "token", "access_token", "refresh_token", "code_verifier"];

/**
 * JSON lines to stdout, or to LOG_FILE. Nothing we log carries a secret, and the redaction list is a second
 * guard should a future line ever include a body or headers.
 */
export function createLogger(options: {
  level: LogLevel;
  file?: string | undefined;
  destination?: DestinationStream;
}): Logger {
  return pino(
    {
      level: options.level === "panic" ? "fatal" : options.level,
      base: { service: "latchkey" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        // Fixed paths only: a wildcard (`*.password`) makes pino walk every object of every line, about 10 µs a line,
        // paid by every request for its request line. These cover a secret at the top of a line and in a body or
        // headers logged whole, the only shapes a line could carry one in.
        paths: SECRET_FIELDS.flatMap((field) => [field, `body.${field}`]).concat(
          ["authorization", "apikey", "cookie"].flatMap((header) => [`headers.${header}`, `req.headers.${header}`]),
        ),
        censor: "[redacted]",
      },
    },
    options.destination ?? bufferedDestination(options.file),
  );
}

/** Lines are written once this many bytes are waiting, or at the next flush. */
const BUFFER_BYTES = 4096;
const FLUSH_INTERVAL_MS = 200;

/**
 * Lines gathered into writes of a few KiB: a write per line cost each request a system call and a trip through
 * libuv's thread pool, which also hashes passwords. A line waits at most FLUSH_INTERVAL_MS, and pino flushes what
 * is left when the process exits.
 *
 * The lines go in as bytes. Given strings, SonicBoom appends each line to the pending text and measures that text's
 * byte length again, which makes V8 copy it whole: about 2 KiB of garbage a request, a tenth of what `GET /user`
 * allocates. Given buffers, it keeps a list and joins it once a batch.
 */
function bufferedDestination(file: string | undefined): DestinationStream {
  const stream = pino.destination({
    dest: file ?? 1,
    mkdir: file !== undefined,
    sync: false,
    minLength: BUFFER_BYTES,
    contentMode: "buffer",
  });
  // `destroyed` is SonicBoom's, missing from its types; flushing a destroyed stream throws.
  const state = stream as unknown as { readonly destroyed: boolean };
  const flusher = setInterval(() => {
    if (state.destroyed) clearInterval(flusher);
    else stream.flush();
  }, FLUSH_INTERVAL_MS);
  flusher.unref();
  return {
    write: (line: string) => stream.write(Buffer.from(line) as unknown as string),
    // pino's logger.flush() reaches the stream through this.
    flush: (callback?: (error?: Error) => void) => stream.flush(callback),
  } as DestinationStream;
}
