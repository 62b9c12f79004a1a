import type * as v from "valibot";

/**
 * One configuration setting, declared once: its name, its value's syntax, its default and its meaning. Everything
 * else (the variables read, the parsed configuration's shape, what is required, the settings reference in
 * docs/settings.md) is derived from these declarations (settings.ts).
 */
export interface Setting<K extends string = string, T = unknown, Defaulted extends boolean = boolean> {
  /** The specification's name, without the `AUTH_` prefix. */
  readonly key: K;
  /** Turns the variable's text into its value, or says what was expected. */
  readonly schema: v.GenericSchema<string, T>;
  /** As an operator would write it, parsed like a value that was set. */
  readonly default: Defaulted extends true ? string : undefined;
  /** What it does, for docs/settings.md. */
  readonly doc: string;
  /** When the start refuses to go on without it. */
  readonly required?: Requirement;
  /** Other names it is read under (see candidateNames). */
  readonly names?: SettingNames;
}

type Requirement =
  /** Required in production, unless another setting has this value (SMTP_HOST, unless the send_email hook is on). */
  | { readonly profile: "production"; readonly unless?: { readonly when: string; readonly is: boolean } }
  /** Required while another setting has this value (an SMS provider's credentials). */
  | { readonly when: string; readonly is: string | boolean };

interface SettingNames {
  /** Also read without a prefix (PORT, DATABASE_URL, ...). */
  readonly unprefixed?: boolean;
  /** The specification's second name (API_PORT for PORT), read with the same prefixes. */
  readonly alternative?: string;
  /** compat: names GoTrue reads that GOTRUE_<NAME> does not cover, read last. */
  readonly gotrue?: readonly string[];
}

interface Options<Default extends string | undefined> {
  readonly default?: Default;
  readonly doc: string;
  readonly required?: Requirement;
  readonly names?: SettingNames;
}

export function setting<const K extends string, T>(
  key: K,
  schema: v.GenericSchema<string, T>,
  options: Options<string> & { default: string },
): Setting<K, T, true>;
export function setting<const K extends string, T>(
  key: K,
  schema: v.GenericSchema<string, T>,
  options: Options<undefined>,
): Setting<K, T, false>;
export function setting<const K extends string, T>(
  key: K,
  schema: v.GenericSchema<string, T>,
  options: Options<string | undefined>,
): Setting<K, T> {
  return {
    key,
    schema,
    default: options.default,
    doc: options.doc,
    required: options.required,
    names: options.names,
  } as Setting<K, T>;
}

/** Settings grouped as the parsed configuration is. */
export interface SettingTree {
  readonly [name: string]: Setting | SettingTree;
}

/** The parsed values of a tree: a setting with a default always has a value; one without may have none. */
export type ValuesOf<Tree> = {
  readonly [Name in keyof Tree]: Tree[Name] extends Setting<string, infer T, infer Defaulted>
    ? Defaulted extends true
      ? T
      : T | undefined
    : ValuesOf<Tree[Name]>;
};

/** Every key of a tree, as a union. */
export type KeysOf<Tree> = {
  [Name in keyof Tree]: Tree[Name] extends Setting<infer K> ? K : KeysOf<Tree[Name]>;
}[keyof Tree];

export function isSetting(node: Setting | SettingTree): node is Setting {
  return typeof node["key"] === "string" && typeof node["doc"] === "string";
}

/** Every setting of a tree, in declaration order. */
export function settingsOf(tree: SettingTree): Setting[] {
  return Object.values(tree).flatMap((node) => (isSetting(node) ? [node] : settingsOf(node)));
}

/** The tree with each setting replaced by what `read` makes of it. */
export function mapSettings(tree: SettingTree, read: (setting: Setting) => unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(tree).map(([name, node]) => [name, isSetting(node) ? read(node) : mapSettings(node, read)]),
  );
}

/** The variable names read for a setting, the first set one winning: AUTH_ names, unprefixed, then GoTrue's. */
export function candidateNames(setting: Setting): readonly string[] {
  const spelled = [setting.key, ...(setting.names?.alternative === undefined ? [] : [setting.names.alternative])];
  return [
    ...spelled.map((name) => `AUTH_${name}`),
    ...(setting.names?.unprefixed ? [setting.key] : []),
    ...spelled.map((name) => `GOTRUE_${name}`),
    ...(setting.names?.gotrue ?? []),
  ];
}

/** The name a setting is shown under when it was not set: its AUTH_ name, or its bare one if it has one. */
export function canonicalName(setting: Setting): string {
  return setting.names?.unprefixed ? setting.key : `AUTH_${setting.key}`;
}
