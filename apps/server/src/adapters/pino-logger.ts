import pino, { type DestinationStream, type Logger } from "pino";

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
        paths: [
          "password",
          "*.password",
          "nonce",
          "*.nonce",
          "token",
          "*.token",
          "access_token",
          "*.access_token",
          "refresh_token",
          "*.refresh_token",
          "headers.authorization",
          "*.headers.authorization",
          "headers.apikey",
          "*.headers.apikey",
        ],
        censor: "[redacted]",
      },
    },
    options.destination ??
      (options.file ? pino.destination({ dest: options.file, mkdir: true, sync: false }) : pino.destination({ sync: false })),
  );
}
