import { describe, expect, it } from "vitest";
import { databaseAddress } from "../../src/delivery/listen-connection-log.ts";
import { createOutageLog } from "../../src/logging/outage-log.ts";
import { createLogger } from "../../src/logging/pino-logger.ts";

function setup() {
  const lines: Record<string, any>[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
  let at = 1_000_000;
  const outage = createOutageLog(createLogger({ level: "info", destination }), {
    fields: { redis: "cache:6379" },
    downMessage: "Redis cannot be reached",
    upMessage: (downFor) => `Redis is back after ${downFor}`,
    now: () => at,
  });
  const advance = (ms: number) => {
    at += ms;
  };
  return { lines, outage, advance };
}

const refused = () => Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:6379"), { code: "ECONNREFUSED" });

describe("outage log", () => {
  it("says once that a dependency is down and once, with how long, that it is back", () => {
    const { lines, outage, advance } = setup();
    outage.up();
    outage.down(refused());
    advance(700);
    outage.down(new Error("Command timed out"));
    outage.down(refused());
    advance(3_500);
    outage.up();
    outage.up();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 40,
      redis: "cache:6379",
      error: "connect ECONNREFUSED 10.0.0.5:6379",
      code: "ECONNREFUSED",
      msg: "Redis cannot be reached",
    });
    expect(lines[0]).not.toHaveProperty("err");
    expect(lines[1]).toMatchObject({
      level: 30,
      redis: "cache:6379",
      down_ms: 4_200,
      msg: "Redis is back after 4.2 s",
    });

    outage.down(refused());
    expect(lines).toHaveLength(3);
  });

  it("gives the innermost cause's code, and a stack only for what is a bug of ours", () => {
    const { lines, outage } = setup();
    outage.down(new Error("rate limiter: Redis did not answer: connect ECONNREFUSED", { cause: refused() }));
    outage.up();
    outage.down(new Error("rate limiter: Redis did not answer", { cause: new TypeError("x is not a function") }));
    expect(lines[0]).toMatchObject({
      error: "rate limiter: Redis did not answer: connect ECONNREFUSED",
      code: "ECONNREFUSED",
    });
    expect(JSON.stringify(lines[0])).not.toContain("    at ");
    expect(lines[2]?.["err"]?.stack).toContain("TypeError");
  });

  it("names where the database is without its credentials", () => {
    expect(databaseAddress("postgres://auth:secret@db.internal:6432/auth?sslmode=require")).toBe("db.internal:6432");
    expect(databaseAddress("postgresql://auth:secret@db.internal/auth")).toBe("db.internal:5432");
    expect(databaseAddress("postgres:///auth?host=/var/run/postgresql")).toBe("/var/run/postgresql:5432");
    expect(databaseAddress("auth:secret")).not.toContain("secret");
  });
});
