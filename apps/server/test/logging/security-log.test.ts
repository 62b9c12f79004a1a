import { describe, expect, it } from "vitest";
import { securityLog } from "../../src/logging/security-log.ts";

function recordingLog() {
  const warnings: [Record<string, unknown>, string][] = [];
  return {
    warnings,
    log: { warn: (fields: Record<string, unknown>, message: string) => warnings.push([fields, message]) },
  };
}

describe("the security log", () => {
  it("warns of a password let through unchecked, not of one refused (the request's failure says so)", () => {
    const { warnings, log } = recordingLog();
    const events = securityLog(log as never);
    events.record({
      kind: "pwned_check_failed",
      refused: false,
      reason: "range request failed: no answer within 5000 ms",
    });
    events.record({ kind: "pwned_check_failed", refused: true, reason: "range request failed: answered 503" });
    events.record({ kind: "captcha_failed", reason: "missing" });
    expect(warnings).toEqual([
      [
        { reason: "range request failed: no answer within 5000 ms" },
        "Unable to perform password strength check with HaveIBeenPwned.org, pwned passwords are being allowed",
      ],
    ]);
  });
});
