import type { ImportedCounts } from "@latchkey/domain";
import type { ImportProgress, ImportSummary } from "./run-import.ts";

/** One progress line: how far, how fast, how long still, and where to resume (for a terminal, rewritten in place). */
export function progressLine(progress: ImportProgress): string {
  const seconds = Math.max(progress.elapsedMs / 1000, 0.001);
  const rate = progress.usersDone / seconds;
  const left = Math.max(progress.usersTotal - progress.usersDone, 0);
  const eta = rate > 0 ? durationOf(left / rate) : "?";
  // The last user written, so that an interrupted run can be resumed from the last line it printed.
  const resume = progress.lastUserId === null ? "" : ` · --after ${progress.lastUserId}`;
  return `users ${count(progress.usersDone)}/${count(progress.usersTotal)} · ${count(Math.round(rate))}/s · about ${eta} left${resume}`;
}

const KINDS: readonly [keyof ImportedCounts, string][] = [
  ["users", "users"],
  ["identities", "identities"],
  ["factors", "MFA factors"],
  ["passkeys", "passkeys"],
  ["sessions", "sessions"],
  ["refreshTokens", "refresh tokens"],
];

/**
 * The summary: counts per kind (written, and on a later run unchanged, or kept as changed here since), the SSO
 * providers brought, every user and provider skipped and why, and what was left behind.
 */
export function summaryText(summary: ImportSummary): string {
  const verb = summary.dryRun ? "would be written" : "written";
  const lines = [
    `${summary.dryRun ? "Dry run: nothing was written. " : ""}${count(summary.usersRead)} users read in ${durationOf(summary.elapsedMs / 1000)}.`,
    ...KINDS.map(([key, name]) => {
      const unchanged = summary.unchanged[key] > 0 ? `, ${count(summary.unchanged[key])} unchanged` : "";
      const kept = summary.kept[key] > 0 ? `, ${count(summary.kept[key])} kept (changed here since)` : "";
      return `  ${name}: ${count(summary.written[key])} ${verb}${unchanged}${kept}`;
    }),
  ];
  const sso = summary.ssoProviders;
  if (sso.read > 0) {
    const alreadyHere = sso.alreadyHere > 0 ? `, ${count(sso.alreadyHere)} already here (left as they are)` : "";
    const skipped = sso.skipped.length > 0 ? `, ${count(sso.skipped.length)} skipped` : "";
    lines.push(`  SSO providers: ${count(sso.written)} ${verb}${alreadyHere}${skipped}`);
  }
  if (summary.softDeleted > 0) {
    lines.push(
      `Soft-deleted in GoTrue, and here too: ${plural(summary.softDeleted, "user")} (no sign-in; their email and phone are free for others, as in GoTrue).`,
    );
  }
  if (summary.audit !== null) {
    const left =
      summary.audit.left > 0 ? `, ${count(summary.audit.left)} left out (actions Latchkey does not have)` : "";
    lines.push(`  audit log entries: ${count(summary.audit.written)} ${verb}${left}`);
  }
  if (summary.skippedCount > 0) {
    lines.push(`Skipped ${plural(summary.skippedCount, "user")}:`);
    lines.push(...summary.skipped.map((skip) => `  ${skip.userId}: ${skip.reason}`));
    if (summary.skippedCount > summary.skipped.length) {
      lines.push(`  … and ${count(summary.skippedCount - summary.skipped.length)} more`);
    }
  }
  if (sso.skipped.length > 0) {
    lines.push(
      `Skipped ${plural(sso.skipped.length, "SSO provider")} (their users come all the same, and sign in with SSO once a provider of that id is here):`,
      ...sso.skipped.map((skip) => `  ${skip.providerId}: ${skip.reason}`),
    );
  }
  const { dropped } = summary;
  if (dropped.pendingTokens > 0) {
    lines.push(
      `Dropped ${count(dropped.pendingTokens)} pending links and codes (confirmations, recoveries, changes): GoTrue keeps only their digests; whoever waits for one asks again.`,
    );
  }
  if (dropped.endedSessions > 0) {
    lines.push(`Left out ${count(dropped.endedSessions)} ended sessions (signed out, or past not_after).`);
  }
  for (const [what, items] of [
    ["session", dropped.sessions],
    ["factor", dropped.factors],
    ["passkey", dropped.passkeys],
    ["password", dropped.passwords],
  ] as const) {
    if (items.length === 0) continue;
    lines.push(`Dropped ${plural(items.length, what)}:`, ...items.map((item) => `  ${item}`));
  }
  if (summary.lastUserId !== null) lines.push(`Last user: ${summary.lastUserId} (--after resumes from there).`);
  return lines.join("\n");
}

const count = (value: number) => value.toLocaleString("en-US");
const plural = (value: number, noun: string) => `${count(value)} ${noun}${value === 1 ? "" : "s"}`;

function durationOf(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
