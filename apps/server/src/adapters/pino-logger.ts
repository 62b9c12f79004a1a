import pino, { type DestinationStream, type Logger } from "pino";

const SECRET_FIELDS = ["password", "nonce", "token", "access_token", "refresh_token", "code_verifier"];

export type LogLevel = "panic" | "fatal" | "error" | "warn" | "info" | "debug";

/**
 * JSON lines to stdout, or to LOG_FILE. Nothing we log carries a secret, and the redaction list is a second
 * guard should a future line ever include a body or headers.
 */
export function createLogger(options: { level: LogLevel; file?: string | undefined; destination?: DestinationStream }): Logger {
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
    options.destination ??
      (options.file ? pino.destination({ dest: options.file, mkdir: true, sync: false }) : pino.destination({ sync: false })),
  );
}
