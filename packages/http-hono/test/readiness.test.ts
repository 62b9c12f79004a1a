import { describe, expect, it } from "vitest";
import type { Readiness } from "../src/index.ts";
import { createTestApp, json } from "./support.ts";

describe("GET /ready", () => {
  it("answers 200 with what was checked when the instance can serve, at the root and under /auth/v1", async () => {
    const { send } = createTestApp({
      readiness: async () => ({ ready: true, dependencies: { database: "ok", redis: "ok" } }),
    });
    for (const path of ["/ready", "/auth/v1/ready"]) {
      const answer = await send("GET", path);
      expect(answer.status).toBe(200);
      expect(await json(answer)).toEqual({ database: "ok", redis: "ok" });
    }
  });

  it("answers 200 naming a dependency that failed when the instance serves without it", async () => {
    const { send } = createTestApp({
      readiness: async () => ({ ready: true, dependencies: { database: "ok", redis: "unavailable" } }),
    });
    const answer = await send("GET", "/ready");
    expect(answer.status).toBe(200);
    expect(await json(answer)).toEqual({ database: "ok", redis: "unavailable" });
  });

  it("answers 503 naming what failed when the instance cannot serve", async () => {
    const { send } = createTestApp({
      readiness: async () => ({ ready: false, dependencies: { database: "unavailable", redis: "ok" } }),
    });
    const answer = await send("GET", "/ready");
    expect(answer.status).toBe(503);
    expect(await json(answer)).toEqual({ database: "unavailable", redis: "ok" });
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("checks on every request, while /health checks nothing", async () => {
    let checks = 0;
    const readiness: Readiness = async () => {
      checks++;
      return { ready: false, dependencies: { database: "unavailable" } };
    };
    const { send } = createTestApp({ readiness });
    expect((await send("GET", "/health")).status).toBe(200);
    expect(checks).toBe(0);
    expect((await send("GET", "/ready")).status).toBe(503);
    expect((await send("GET", "/ready")).status).toBe(503);
    expect(checks).toBe(2);
  });
});
