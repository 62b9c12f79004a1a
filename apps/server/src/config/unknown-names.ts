import { DECLARED_NAMES, SETTINGS_BY_KEY } from "./env-names.ts";
import { isNotBuilt } from "./not-built.ts";
import type { SettingKey } from "./settings.ts";

/** A variable Latchkey does not read, said by name only (never its value), and the setting it was probably meant for. */
export interface NameHint {
  readonly text: string;
  readonly key: SettingKey | undefined;
}

/**
 * One hint for each AUTH_ or GOTRUE_ variable that names no setting (a misspelling is otherwise silently
 * ignored), with the closest setting's name when one is near. Settings of features not built are refused
 * elsewhere (not-built.ts), so they are not repeated here.
 */
export function unknownNameHints(sources: readonly Readonly<Record<string, string>>[]): NameHint[] {
  const warned = new Set<string>();
  for (const variables of sources) {
    for (const name of Object.keys(variables)) {
      const match = /^(AUTH|GOTRUE)_(.+)$/.exec(name);
      if (!match || warned.has(name)) continue;
      const bare = match[2] ?? "";
      if (DECLARED_NAMES.has(bare) || isNotBuilt(bare)) continue;
      warned.add(name);
    }
  }
  return [...warned].map((name) => {
    const [, prefix, bare] = /^(AUTH|GOTRUE)_(.+)$/.exec(name) as unknown as [string, string, string];
    const closest = closestName(bare);
    return closest === undefined
      ? { text: `${name} is not a setting of Latchkey; it is ignored`, key: undefined }
      : { text: `${name} is not a setting; did you mean ${prefix}_${closest}?`, key: keyOf(closest) };
  });
}

/** The key of the setting declared under `name`, its key or its alternative. */
function keyOf(name: string): SettingKey | undefined {
  for (const [key, declared] of SETTINGS_BY_KEY) {
    if (key === name || declared.names?.alternative === name) return key;
  }
  return undefined;
}

/** The declared name within a few edits of `name` (about one in five characters), the nearest first. */
function closestName(name: string): string | undefined {
  const most = Math.max(2, Math.floor(name.length / 5));
  let best: { name: string; distance: number } | undefined;
  for (const declared of DECLARED_NAMES) {
    if (Math.abs(declared.length - name.length) > most) continue;
    const distance = editDistance(name, declared);
    if (distance <= most && (best === undefined || distance < best.distance)) best = { name: declared, distance };
  }
  return best?.name;
}

/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit (a typo's usual shape). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
