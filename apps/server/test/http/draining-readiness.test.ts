import { describe, expect, it } from "vitest";
import { drainingReadiness } from "../../src/http/draining-readiness.ts";

describe("drainingReadiness", () => {
  it("answers as the dependencies do until the drain, then not ready, with their states as ever", async () => {
    const { readiness, startDraining } = drainingReadiness(async () => ({
      ready: true,
      dependencies: { database: "ok", redis: "unavailable" },
    }));
    expect(await readiness()).toEqual({ ready: true, dependencies: { database: "ok", redis: "unavailable" } });
    startDraining();
    expect(await readiness()).toEqual({ ready: false, dependencies: { database: "ok", redis: "unavailable" } });
  });
});
