import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogMailer, createLogSmsSender } from "../../src/adapters/log-senders.ts";
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

const email = {
  kind: "confirmation",
  to: "ada@example.com",
  linkType: "signup",
  linkToken: "tok-123",
  otp: "654321",
  redirectTo: "https://app.example.com/welcome",
  data: {},
} as const;

describe("log senders", () => {
  it("in development, write the link (built on API_EXTERNAL_URL) and the code for a developer to follow", async () => {
    const { lines, log } = capture();
    await createLogMailer(() => log, { externalUrl: "https://auth.example.com/base/", confirmationPath: "/verify", reveal: true }).send(email);
    expect(lines[0]?.mail).toEqual({
      kind: "confirmation",
      to: "ada@example.com",
      link: "https://auth.example.com/base/verify?token=tok-123&type=signup&redirect_to=https%3A%2F%2Fapp.example.com%2Fwelcome",
      code: "654321",
    });
  });

  it("elsewhere, record only that a message was due: nothing that could act on it", async () => {
    const { lines, log } = capture();
    await createLogMailer(() => log, { externalUrl: "https://auth.example.com", confirmationPath: "/verify", reveal: false }).send(email);
    await createLogSmsSender(() => log, { reveal: false }).send({ kind: "confirmation", to: "+15550100000", otp: "112233" });
    expect(lines.map((line) => line.mail ?? line.sms)).toEqual([
      { kind: "confirmation", to: "ada@example.com" },
      { kind: "confirmation", to: "+15550100000" },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/tok-123|654321|112233/);
  });
});
