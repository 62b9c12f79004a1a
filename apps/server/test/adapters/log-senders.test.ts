import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogSmsSender } from "../../src/adapters/log-senders.ts";
import { createLogger } from "../../src/adapters/pino-logger.ts";

function capture() {
  const lines: Record<string, any>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: createLogger({ level: "info", destination }) };
}

describe("log SMS sender", () => {
  it("writes the code for a developer to use (the development profile's only)", async () => {
    const { lines, log } = capture();
    await createLogSmsSender(log).send({ kind: "confirmation", to: "+15550100000", otp: "112233" });
    expect(lines[0]?.sms).toEqual({ kind: "confirmation", to: "+15550100000", code: "112233" });
  });
});
