import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/pino-logger.ts";

function capture() {
  const lines: Record<string, any>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
  return { lines, log: createLogger({ level: "info", destination }) };
}

describe("pino logger", () => {
  it("censors secrets at the top of a line and in a body or headers logged whole", () => {
    const { lines, log } = capture();
    log.child({ request_id: "r1" }).info(
      {
        refresh_token: "rt",
        body: { email: "a@example.com", password: "pw", code_verifier: "cv" },
        headers: { authorization: "Bearer t", "content-type": "application/json" },
        req: { headers: { apikey: "k" } },
      },
      "request",
    );
    expect(lines[0]).toMatchObject({
      request_id: "r1",
      refresh_token: "[redacted]",
      body: { email: "a@example.com", password: "[redacted]", code_verifier: "[redacted]" },
      headers: { authorization: "[redacted]", "content-type": "application/json" },
      req: { headers: { apikey: "[redacted]" } },
    });
  });

  it("writes lines in batches, but none waits long for a batch to fill", async () => {
    const folder = mkdtempSync(join(tmpdir(), "latchkey-log-"));
    try {
      const file = join(folder, "server.log");
      const log = createLogger({ level: "info", file });
      log.info({ n: 1 }, "a lone line, far from filling a batch");
      const read = () =>
        readFileSync(file, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line));
      await expect
        .poll(read, { timeout: 2_000, interval: 50 })
        .toMatchObject([{ n: 1, msg: "a lone line, far from filling a batch" }]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("keeps every line of many batches whole and in order, whatever their characters", async () => {
    const folder = mkdtempSync(join(tmpdir(), "latchkey-log-"));
    try {
      const file = join(folder, "server.log");
      const log = createLogger({ level: "info", file });
      // Several KiB of lines with multi-byte characters: batches are cut by bytes, not by characters.
      const count = 400;
      for (let n = 0; n < count; n++) log.info({ n, name: `Zoë ✓ 名前 ${n}` }, "line");
      const read = () =>
        readFileSync(file, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { n: number; name: string });
      await expect.poll(() => read().length, { timeout: 2_000, interval: 50 }).toBe(count);
      expect(read().map(({ n, name }) => [n, name])).toEqual(
        Array.from({ length: count }, (_, n) => [n, `Zoë ✓ 名前 ${n}`]),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
