/** One forward-only schema change. */
export interface Migration {
  /** Recorded in `<ns>schema_migrations`; migrations apply in the order of the list, which sorts by version. */
  readonly version: string;
  /**
   * The SQL script (several statements allowed, no parameters) for a namespace that has already been validated,
   * so it may be spliced into quoted identifiers.
   */
  readonly up: (ns: string) => string;
}
