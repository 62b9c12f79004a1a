/** How long, and how many, range answers are kept. */
export interface PrefixCacheLimits {
  readonly ttlMs: number;
  readonly maxEntries: number;
}

interface Entry {
  readonly storedAt: number;
  /** The range's breached suffixes, `\n`-separated with one at each end, so a lookup is one `includes`. */
  readonly suffixes: Promise<string>;
}

/**
 * The range answers of the last minutes, by prefix: someone retrying a password (a signup refused for its length,
 * a typo) asks the service once. An answer still coming is shared, and a failed one forgotten at once. The oldest
 * entry makes room; a range of a few hundred breached suffixes takes some 30 kB.
 */
export class PrefixCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly limits: PrefixCacheLimits,
    private readonly now: () => number,
  ) {}

  /** The suffixes of `prefix`, from the cache while fresh, else from `fetchRange` (then kept). */
  suffixesOf(prefix: string, fetchRange: () => Promise<string>): Promise<string> {
    const now = this.now();
    const cached = this.entries.get(prefix);
    if (cached && now - cached.storedAt < this.limits.ttlMs) return cached.suffixes;
    this.entries.delete(prefix);
    if (this.limits.maxEntries <= 0 || this.limits.ttlMs <= 0) return fetchRange();
    while (this.entries.size >= this.limits.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    const entry: Entry = { storedAt: now, suffixes: fetchRange() };
    this.entries.set(prefix, entry);
    entry.suffixes.catch(() => {
      if (this.entries.get(prefix) === entry) this.entries.delete(prefix);
    });
    return entry.suffixes;
  }
}
