import { OAUTH_PROVIDER_NAMES, type OAuthProviderName } from "@latchkey/adapters-oauth";
import {
  ConfigError,
  type ConfigSources,
  type EffectiveSetting,
  type EffectiveSettings,
  effectiveSettings,
  loadConfig,
} from "../config/index.ts";
import { settingsOf } from "../config/setting.ts";
import { SETTINGS } from "../config/settings.ts";
import type { CommandResult } from "./keys-command.ts";

/**
 * `latchkey config`: every setting's value and where it came from (the environment, the .env file, its default, the
 * development profile), secrets redacted, on stdout; then whether the start would take it: exit code 0 with its
 * warnings, or 1 with its problems on stderr. What an operator asks first when the server does what they did not
 * expect. It loads the configuration as the start does, so in the development profile it makes the generated
 * secret and key when they are missing, as the start would.
 */
export function configCommand(sources: ConfigSources): CommandResult {
  let report: EffectiveSettings;
  try {
    report = effectiveSettings(sources);
  } catch (error) {
    if (error instanceof ConfigError) return { error: error.message, exitCode: 1 };
    throw error;
  }
  try {
    const { warnings } = loadConfig(sources);
    return { out: reportText(report, warnings), exitCode: 0 };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { out: reportText(report, []), error: error.message, exitCode: 1 };
  }
}

/** The widest source's label, so that the names line up. */
const SOURCE_WIDTH = "development profile".length + 2;

function reportText(report: EffectiveSettings, warnings: readonly string[]): string {
  const untouched = untouchedProviders(report.settings);
  const hidden = new Set<string>(untouched.flatMap((provider) => providerKeys(provider)));
  const read = report.dotenvFile === undefined ? "the environment" : `the environment, then ${report.dotenvFile}`;
  const lines = [
    `# ${report.profile} profile (${report.profile === "production" ? "a database URL is set" : "no database URL is set"}); read from ${read}`,
    ...report.settings.filter((setting) => !hidden.has(setting.key)).map(settingLine),
  ];
  if (untouched.length > 0) {
    lines.push(
      `${"default".padEnd(SOURCE_WIDTH)}AUTH_EXTERNAL_<PROVIDER>_*: nothing set, so off: ${untouched.join(", ")}`,
    );
  }
  lines.push(...warnings.map((warning) => `warning: ${warning}`));
  return lines.join("\n");
}

function settingLine(setting: EffectiveSetting): string {
  const shown =
    setting.value !== undefined
      ? `${setting.name}=${quoted(setting.value)}`
      : setting.note !== undefined
        ? `${setting.name} (${setting.note})`
        : setting.name;
  return `${setting.source.padEnd(SOURCE_WIDTH)}${shown}`;
}

/** A value as a .env file would hold it: bare when that is unambiguous, else in double quotes. */
function quoted(value: string): string {
  return /^[^\s"'`#\\$]*$/.test(value) ? value : JSON.stringify(value);
}

/** OAuth providers none of whose settings is set: one line for them all, rather than seven lines each. */
function untouchedProviders(settings: readonly EffectiveSetting[]): OAuthProviderName[] {
  const set = new Set<string>(
    settings.filter((setting) => setting.source !== "default" && setting.source !== "unset").map(({ key }) => key),
  );
  return OAUTH_PROVIDER_NAMES.filter((provider) => !providerKeys(provider).some((key) => set.has(key)));
}

function providerKeys(provider: OAuthProviderName): string[] {
  return settingsOf(SETTINGS.external[provider]).map((declared) => declared.key);
}

/** The command as the binary runs it: this process's environment and working directory, its output streams. */
export function runConfigCommand(): void {
  const result = configCommand({ env: process.env, cwd: process.cwd() });
  if (result.out !== undefined) process.stdout.write(`${result.out}\n`);
  if (result.error !== undefined) process.stderr.write(`${result.error}\n`);
  process.exitCode = result.exitCode;
}
