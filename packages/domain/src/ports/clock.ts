export interface Clock {
  now(): Date;
  /** Resolves after `milliseconds` (immediately for zero or less). */
  sleep(milliseconds: number): Promise<void>;
}
