/**
 * A start that cannot go on for a reason the operator can fix, in one line (what, where, what to do): printed
 * alone, without a stack, and the process exits 1.
 */
export class StartupFailure extends Error {
  constructor(line: string, options?: ErrorOptions) {
    super(line, options);
    this.name = "StartupFailure";
  }
}
