import { candidateNames, isSetting, type Setting, type SettingTree } from "./setting.ts";
import { SETTINGS } from "./settings.ts";

/** What each group of settings is about, as docs/settings.md heads it. */
export const GROUPS: Readonly<Record<string, string>> = {
  siteUrl: "The app",
  uriAllowList: "The app",
  api: "HTTP",
  db: "Database",
  log: "Log",
  tracing: "Tracing",
  metrics: "Metrics",
  jwt: "Access tokens",
  signup: "Sign-up and sign-in",
  external: "OAuth providers",
  captcha: "Captcha",
  security: "Security",
  password: "Passwords",
  mailer: "Mail",
  smtp: "SMTP",
  sms: "SMS",
  rateLimit: "Limits",
  mfa: "Multi-factor authentication",
  multiInstance: "Refused (GoTrue's multi-instance mode)",
};

/** docs/settings.md: every setting, derived from its declaration (settings.ts). */
export function settingsReference(): string {
  const sections = new Map<string, Setting[]>();
  for (const [name, node] of Object.entries(SETTINGS as SettingTree)) {
    const heading = GROUPS[name] ?? name;
    sections.set(heading, [...(sections.get(heading) ?? []), ...flatten(node)]);
  }
  const lines = [
    "# Settings",
    "",
    "Generated from `apps/server/src/config/settings.ts` by `npx --yes pnpm@10.34.8 settings-doc`; a test keeps it current.",
    "Each setting is read under the names listed, in that order, then as `GOTRUE_<NAME>`. Durations are",
    "seconds (`60`) or Go durations (`1h30m`); switches are Go booleans (`true`, `false`, `1`, `0`). Settings of",
    "features Latchkey does not have yet stop the start (a switch set to false passes): see docs/compatibility.md.",
  ];
  for (const [heading, settings] of sections) {
    lines.push("", `## ${heading}`, "", "| Setting | Default | Meaning |", "|---|---|---|");
    for (const declared of settings)
      lines.push(`| ${nameCell(declared)} | ${defaultCell(declared)} | ${meaningCell(declared)} |`);
  }
  return `${lines.join("\n")}\n`;
}

function flatten(node: Setting | SettingTree): Setting[] {
  return isSetting(node) ? [node] : Object.values(node).flatMap(flatten);
}

/** The names read, in the order they are read, but for the GOTRUE_ ones every setting has. */
function nameCell(declared: Setting): string {
  return candidateNames(declared)
    .filter((name) => !name.startsWith("GOTRUE_"))
    .map((name) => `\`${name}\``)
    .join(", ");
}

function defaultCell(declared: Setting): string {
  if (declared.default !== undefined)
    return declared.default === "" ? "(empty)" : `\`${declared.default.replaceAll("|", "\\|")}\``;
  const required = declared.required;
  if (required === undefined) return "";
  if (!("profile" in required)) return `required when \`${required.when}\` is \`${required.is}\``;
  const { unless } = required;
  return unless ? `required in production, unless \`${unless.when}\` is \`${unless.is}\`` : "required in production";
}

function meaningCell(declared: Setting): string {
  return declared.doc.replaceAll("|", "\\|");
}
