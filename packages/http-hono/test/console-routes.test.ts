import { describe, expect, it } from "vitest";
import type { ConsoleFiles } from "../src/index.ts";
import { createTestApp } from "./support.ts";

// The admin console is static files beside the API: the page never cached and locked down (its own script and
// stylesheet only, this origin only, never framed), its hashed assets cached for a year, and nothing else there.

const text = (body: string) => new TextEncoder().encode(body);
const files: ConsoleFiles = {
  files: new Map([
    ["index.html", { body: text("<!doctype html><title>console</title>"), contentType: "text/html; charset=utf-8" }],
    ["assets/console-ABC123.js", { body: text("console.log(1)"), contentType: "text/javascript; charset=utf-8" }],
    ["assets/console-DEF456.css", { body: text("body{}"), contentType: "text/css; charset=utf-8" }],
  ]),
};

describe("the admin console's files", () => {
  it("serves the page at /console and /console/, uncached, under a strict CSP and never framed", async () => {
    const { app } = createTestApp({ console: files });
    for (const path of ["/console", "/console/"]) {
      const response = await app.request(path);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("<!doctype html><title>console</title>");
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
    }
  });

  it("serves hashed assets with their type, cached for a year", async () => {
    const { app } = createTestApp({ console: files });
    const script = await app.request("/console/assets/console-ABC123.js");
    expect(script.status).toBe(200);
    expect(await script.text()).toBe("console.log(1)");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const styles = await app.request("/console/assets/console-DEF456.css");
    expect(styles.headers.get("content-type")).toBe("text/css; charset=utf-8");
    // Twice: each answer has a body of its own.
    expect(await (await app.request("/console/assets/console-ABC123.js")).text()).toBe("console.log(1)");
  });

  it("answers the API's 404 for an unknown asset or path, uncached", async () => {
    const { app } = createTestApp({ console: files });
    for (const path of [
      "/console/assets/console-OLD.js",
      "/console/assets/",
      "/console/users",
      "/console/index.html",
    ]) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("cache-control"), path).toBe("no-store");
    }
  });

  it("is not served when off (by default), nor under /auth/v1", async () => {
    const { app } = createTestApp();
    expect((await app.request("/console")).status).toBe(404);
    expect((await app.request("/console/assets/console-ABC123.js")).status).toBe(404);
    const on = createTestApp({ console: files });
    expect((await on.app.request("/auth/v1/console")).status).toBe(404);
  });
});
