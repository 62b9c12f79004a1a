import { AuthError } from "../errors.ts";
import { parseGoDuration } from "./go-duration.ts";

export type BanDuration = { readonly kind: "unban" } | { readonly kind: "ban"; readonly milliseconds: number };

/** `ban_duration`: a Go duration to ban for, or `none` to lift a ban. Negative durations are refused. */
export function parseBanDuration(text: string): BanDuration {
  if (text === "none") return { kind: "unban" };
  const milliseconds = parseGoDuration(text);
  if (milliseconds === null || milliseconds < 0) {
    throw new AuthError("validation_failed", `invalid format for ban duration: ${JSON.stringify(text)}`);
  }
  return { kind: "ban", milliseconds };
}

/** The `banned_until` a ban decision leads to. */
export function bannedUntil(ban: BanDuration, now: Date): Date | null {
  return ban.kind === "unban" ? null : new Date(now.getTime() + ban.milliseconds);
}
