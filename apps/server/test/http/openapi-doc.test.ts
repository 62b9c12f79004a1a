import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describeApi } from "@latchkey/http-hono";
import { describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { startTestServer } from "../support/index.ts";

describe("docs/openapi.json", () => {
  it("is what the route table describes (regenerate it with `npx --yes pnpm@10.34.8 openapi-doc`)", () => {
    const written = readFileSync(join(import.meta.dirname, "..", "..", "..", "..", "docs", "openapi.json"), "utf8");
    expect(JSON.parse(written)).toEqual(describeApi(packageJson.version));
  });

  it("is what the server serves at /openapi.json", async () => {
    const server = await startTestServer();
    try {
      const served = await fetch(`${server.url}/openapi.json`);
      expect(served.status).toBe(200);
      expect(await served.json()).toEqual(describeApi(packageJson.version));
    } finally {
      await server.close();
    }
  });
});
