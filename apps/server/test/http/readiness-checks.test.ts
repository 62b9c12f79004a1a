import { describe, expect, it } from "vitest";
import { configuredReadiness, createReadiness } from "../../src/http/readiness.ts";

const answers = async () => undefined;
const fails = async () => {
  throw new Error("down");
};
const never = () => new Promise<never>(() => undefined);

describe("readiness", () => {
  it("is ready unless a required dependency failed, and names each one checked", async () => {
    const readiness = createReadiness({
      database: { check: answers, required: true },
      redis: { check: fails, required: false },
    });
    expect(await readiness()).toEqual({ ready: true, dependencies: { database: "ok", redis: "unavailable" } });

    const failing = createReadiness({
      database: { check: fails, required: true },
      redis: { check: answers, required: false },
    });
    expect(await failing()).toEqual({ ready: false, dependencies: { database: "unavailable", redis: "ok" } });
  });

  it("counts a check that does not answer in time as unavailable, and gives each its time", async () => {
    const given: number[] = [];
    const readiness = createReadiness(
      {
        database: {
          check: (timeoutMs) => {
            given.push(timeoutMs);
            return never();
          },
          required: true,
        },
      },
      50,
    );
    const started = Date.now();
    expect(await readiness()).toEqual({ ready: false, dependencies: { database: "unavailable" } });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(given).toEqual([50]);
  });

  it("makes Redis and SMTP count only when API_READINESS_DEPENDENCIES names them; the database always", async () => {
    const down = { database: answers, redis: fails, smtp: fails };
    const none = configuredReadiness([], down);
    expect(await none()).toEqual({
      ready: true,
      dependencies: { database: "ok", redis: "unavailable", smtp: "unavailable" },
    });
    const redis = configuredReadiness(["redis"], down);
    expect((await redis()).ready).toBe(false);
    const smtp = configuredReadiness(["redis"], { ...down, redis: answers });
    expect((await smtp()).ready).toBe(true);
    const database = configuredReadiness([], { database: fails, redis: answers, smtp: answers });
    expect(await database()).toEqual({
      ready: false,
      dependencies: { database: "unavailable", redis: "ok", smtp: "ok" },
    });
  });

  it("checks only what is configured", async () => {
    const readiness = configuredReadiness(["redis", "smtp"], { database: answers, redis: undefined, smtp: undefined });
    expect(await readiness()).toEqual({ ready: true, dependencies: { database: "ok" } });
  });
});
