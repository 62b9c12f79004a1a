import { SmtpDeliveryError } from "@latchkey/adapters-smtp";
import { describe, expect, it } from "vitest";
import { SMTP_RECHECK_MS, watchSmtpAvailability } from "../../src/delivery/smtp-availability.ts";
import { createLogger } from "../../src/logging/pino-logger.ts";

const refused = () =>
  new SmtpDeliveryError(Object.assign(new Error("connect ECONNREFUSED 10.0.0.9:587"), { code: "ECONNECTION" }), []);

/** A verify whose every call waits until the test settles it. */
function setup() {
  const lines: Record<string, any>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
  let at = 1_000_000;
  const calls: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  const availability = watchSmtpAvailability({
    verify: () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject })),
    log: createLogger({ level: "info", destination }),
    server: "mail.example.com:587",
    now: () => at,
  });
  const advance = (ms: number) => {
    at += ms;
  };
  const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { lines, calls, availability, advance, settled };
}

describe("SMTP availability", () => {
  it("checks at once, and says in one line that mail can be delivered", async () => {
    const { lines, calls, availability, settled } = setup();
    expect(calls).toHaveLength(1);
    expect(availability.available()).toBeUndefined();
    const asked = availability.check();
    calls[0]!.resolve();
    await expect(asked).resolves.toBeUndefined();
    expect(availability.available()).toBe(true);
    await settled();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        smtp: "mail.example.com:587",
        msg: "mail: the SMTP server accepts connections; mail can be delivered",
      }),
    ]);
  });

  it("says in one warning, with why, that mail cannot be delivered, and fails the check", async () => {
    const { lines, calls, availability, settled } = setup();
    calls[0]!.reject(refused());
    await settled();
    await expect(availability.check()).rejects.toThrow();
    expect(availability.available()).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      smtp: "mail.example.com:587",
      error: "SMTP delivery failed: connect ECONNREFUSED 10.0.0.9:587",
      code: "ECONNECTION",
    });
    expect(lines[0]!["msg"]).toMatch(/^mail: the SMTP server cannot be used; mail cannot be delivered/);
    expect(lines[0]).not.toHaveProperty("err");
  });

  it("checks again when asked after SMTP_RECHECK_MS, without waiting, and logs only a change", async () => {
    const { lines, calls, availability, advance, settled } = setup();
    calls[0]!.resolve();
    await settled();
    // Asked often: the finding stands, and the server is not asked again.
    for (let i = 0; i < 5; i++) await availability.check();
    expect(calls).toHaveLength(1);

    advance(SMTP_RECHECK_MS);
    // The last finding answers while the new check runs; one check at a time, however often it is asked.
    await availability.check();
    expect(availability.available()).toBe(true);
    expect(calls).toHaveLength(2);
    calls[1]!.reject(refused());
    await settled();
    await expect(availability.check()).rejects.toThrow();

    advance(SMTP_RECHECK_MS);
    expect(availability.available()).toBe(false);
    calls[2]!.resolve();
    await settled();
    expect(availability.available()).toBe(true);
    advance(SMTP_RECHECK_MS);
    availability.available();
    calls[3]!.resolve();
    await settled();

    expect(lines.map((line) => [line["level"], line["msg"]])).toEqual([
      [30, "mail: the SMTP server accepts connections; mail can be delivered"],
      [40, expect.stringMatching(/^mail: the SMTP server cannot be used/)],
      [30, "mail: the SMTP server accepts connections again; mail can be delivered"],
    ]);
  });

  it("reports nothing once stopped: a check cut short by the mailer's closing is no finding", async () => {
    const { lines, calls, availability, settled } = setup();
    availability.stop();
    calls[0]!.reject(new SmtpDeliveryError(Object.assign(new Error("closed"), { code: "ECANCELED" }), []));
    await settled();
    expect(lines).toEqual([]);
    expect(availability.available()).toBeUndefined();
    await expect(availability.check()).rejects.toThrow();
  });
});
