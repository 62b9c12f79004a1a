import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";

/** Where the .env file comes from: its text, a path that must exist, or (by default) `<cwd>/.env` if present. */
export type DotenvSource = { readonly text: string } | { readonly path: string };

/**
 * The sources the configuration is read from, the environment first: a setting found there, under any of its
 * names, wins over the .env file. A variable set to an empty value counts as not set, in either source, so
 * `AUTH_X=` in a compose file does not hide the .env value.
 */
export function readSources(
  env: Readonly<Record<string, string | undefined>>,
  dotenv: DotenvSource | undefined,
  cwd: string,
): readonly Record<string, string>[] {
  return [withoutEmpty(env), withoutEmpty(parseEnv(readDotenv(dotenv, cwd)))];
}

/** The path of the .env file readSources reads: the given one, else `<cwd>/.env` if present; none for a text. */
export function dotenvPath(source: DotenvSource | undefined, cwd: string): string | undefined {
  if (source === undefined) {
    const path = join(cwd, ".env");
    return existsSync(path) ? path : undefined;
  }
  return "path" in source ? source.path : undefined;
}

function readDotenv(source: DotenvSource | undefined, cwd: string): string {
  if (source !== undefined && "text" in source) return source.text;
  const path = dotenvPath(source, cwd);
  return path === undefined ? "" : readFileSync(path, "utf8");
}

function withoutEmpty(variables: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (value !== undefined && value.trim() !== "") kept[name] = value;
  }
  return kept;
}
