import { describe, expect, it } from "vitest";
import { progressLine, summaryText } from "../src/index.ts";
import type { ImportSummary } from "../src/run-import.ts";

const counts = (users: number) => ({
  users,
  identities: users,
  factors: 0,
  passkeys: users,
  sessions: 1,
  refreshTokens: 2,
});

describe("what the import says", () => {
  it("shows progress with its rate, the time left and where to resume", () => {
    expect(progressLine({ usersDone: 20_000, usersTotal: 100_000, lastUserId: "u-20000", elapsedMs: 10_000 })).toBe(
      "users 20,000/100,000 · 2,000/s · about 40 s left · --after u-20000",
    );
  });

  it("sums up per table and the SSO providers, with every user and provider skipped and why, and what was left behind", () => {
    const summary: ImportSummary = {
      dryRun: true,
      usersRead: 3,
      written: counts(1),
      unchanged: { ...counts(0), sessions: 0, refreshTokens: 0 },
      kept: { ...counts(1), identities: 0, passkeys: 0, sessions: 0, refreshTokens: 0 },
      softDeleted: 0,
      skipped: [{ userId: "u-2", reason: 'phone "12" is not an E.164 number' }],
      skippedCount: 1,
      ssoProviders: {
        read: 3,
        written: 1,
        alreadyHere: 1,
        skipped: [{ providerId: "p-3", reason: "its domain acme.test is held by the SSO provider p-9 here" }],
      },
      dropped: {
        pendingTokens: 2,
        endedSessions: 0,
        sessions: [],
        factors: ["f-1: an unverified WebAuthn factor (no credential registered yet)"],
        passkeys: ["p-1: its credential id or public key is empty"],
        passwords: [],
      },
      lastUserId: "u-3",
      audit: null,
      elapsedMs: 1_500,
    };
    expect(summaryText(summary).split("\n")).toEqual([
      "Dry run: nothing was written. 3 users read in 1.5 s.",
      "  users: 1 would be written, 1 kept (changed here since)",
      "  identities: 1 would be written",
      "  MFA factors: 0 would be written",
      "  passkeys: 1 would be written",
      "  sessions: 1 would be written",
      "  refresh tokens: 2 would be written",
      "  SSO providers: 1 would be written, 1 already here (left as they are), 1 skipped",
      "Skipped 1 user:",
      '  u-2: phone "12" is not an E.164 number',
      "Skipped 1 SSO provider (their users come all the same, and sign in with SSO once a provider of that id is here):",
      "  p-3: its domain acme.test is held by the SSO provider p-9 here",
      "Dropped 2 pending links and codes (confirmations, recoveries, changes): GoTrue keeps only their digests; whoever waits for one asks again.",
      "Dropped 1 factor:",
      "  f-1: an unverified WebAuthn factor (no credential registered yet)",
      "Dropped 1 passkey:",
      "  p-1: its credential id or public key is empty",
      "Last user: u-3 (--after resumes from there).",
    ]);
  });

  it("says on a run after another what is unchanged, apart from what changed here since, and the soft-deleted; no SSO line without providers", () => {
    const none = { ...counts(0), sessions: 0, refreshTokens: 0 };
    const summary: ImportSummary = {
      dryRun: false,
      usersRead: 1_019,
      written: none,
      unchanged: { users: 1_019, identities: 1_019, factors: 3, passkeys: 12, sessions: 40, refreshTokens: 1_019 },
      kept: { ...none, sessions: 1 },
      softDeleted: 2,
      skipped: [],
      skippedCount: 0,
      ssoProviders: { read: 0, written: 0, alreadyHere: 0, skipped: [] },
      dropped: { pendingTokens: 0, endedSessions: 0, sessions: [], factors: [], passkeys: [], passwords: [] },
      lastUserId: "u-1019",
      audit: null,
      elapsedMs: 800,
    };
    expect(summaryText(summary).split("\n")).toEqual([
      "1,019 users read in 0.8 s.",
      "  users: 0 written, 1,019 unchanged",
      "  identities: 0 written, 1,019 unchanged",
      "  MFA factors: 0 written, 3 unchanged",
      "  passkeys: 0 written, 12 unchanged",
      "  sessions: 0 written, 40 unchanged, 1 kept (changed here since)",
      "  refresh tokens: 0 written, 1,019 unchanged",
      "Soft-deleted in GoTrue, and here too: 2 users (no sign-in; their email and phone are free for others, as in GoTrue).",
      "Last user: u-1019 (--after resumes from there).",
    ]);
  });
});
