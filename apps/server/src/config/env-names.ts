import { candidateNames, canonicalName, type Setting, settingsOf } from "./setting.ts";
import { SETTINGS, type SettingKey } from "./settings.ts";

/** Every declared setting, by key. */
export const SETTINGS_BY_KEY: ReadonlyMap<SettingKey, Setting> = new Map(
  settingsOf(SETTINGS).map((declared) => [declared.key as SettingKey, declared]),
);

/** Every name a setting is declared under, without a prefix: its key and its alternative. */
export const DECLARED_NAMES: ReadonlySet<string> = new Set(
  [...SETTINGS_BY_KEY.values()].flatMap((declared) => [
    declared.key,
    ...(declared.names?.alternative === undefined ? [] : [declared.names.alternative]),
  ]),
);

/** A variable as the operator set it. */
interface SetVariable {
  readonly name: string;
  readonly value: string;
  /** The index, among the sources read, of the one it was found in (env-sources.ts: the environment first). */
  readonly source: number;
}

/** What was set for each setting; settings without a set variable are absent. */
export type ResolvedEnv = ReadonlyMap<SettingKey, SetVariable>;

/** Each setting from the first source that sets it under any of its names; within a source, the first name wins. */
export function resolveEnv(sources: readonly Readonly<Record<string, string>>[]): ResolvedEnv {
  const resolved = new Map<SettingKey, SetVariable>();
  for (const [key, declared] of SETTINGS_BY_KEY) {
    const found = sources
      .flatMap((variables, source) =>
        candidateNames(declared).map((name) => ({ name, value: variables[name], source })),
      )
      .find((candidate): candidate is SetVariable => candidate.value !== undefined);
    if (found) resolved.set(key, found);
  }
  return resolved;
}

/** The name to show for a setting: the one the operator used, else its canonical one. */
export function displayName(env: ResolvedEnv, key: SettingKey): string {
  return env.get(key)?.name ?? canonicalName(SETTINGS_BY_KEY.get(key)!);
}
