/** The slice of a structured logger (pino's shape) the transport writes to. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  child(bindings: object): Logger;
}

/**
 * A child of `parent` with `bindings`, made when it is first written to: a request's logger, which most requests
 * never write to (their one line, requestLog's, carries the request id itself).
 */
export function childOnFirstUse(parent: Logger, bindings: object): Logger {
  let child: Logger | undefined;
  const made = () => (child ??= parent.child(bindings));
  return {
    debug: (fields, message) => made().debug(fields, message),
    info: (fields, message) => made().info(fields, message),
    warn: (fields, message) => made().warn(fields, message),
    error: (fields, message) => made().error(fields, message),
    child: (more) => made().child(more),
  };
}
