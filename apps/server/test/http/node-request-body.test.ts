import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNodeBody } from "../../src/http/node-request-body.ts";

const limit = 16;

/** Answers with what the reader read: the body's text, or 413 once it passed the limit. */
const app = new Hono().post("/", async (c) => {
  const body = await readNodeBody(c, limit);
  return body === null ? c.text("too large", 413) : c.text(`read:${Buffer.from(body).toString("utf8")}`);
});

let server: ReturnType<typeof serve>;
let port: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs the chunks one write at a time (chunked, no Content-Length unless given), and reads the answer. */
function post(chunks: string[], headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    const writeNext = (index: number) => {
      if (index === chunks.length) return req.end();
      req.write(chunks[index], () => setTimeout(() => writeNext(index + 1), 5));
    };
    writeNext(0);
  });
}

describe("reading a body from Node's request", () => {
  it("joins a body that arrives in several chunks", async () => {
    expect(await post(['{"a":', '"é"', "}"])).toEqual({ status: 200, text: 'read:{"a":"é"}' });
  });

  it("reads a body of exactly the limit, and an empty one", async () => {
    expect(await post(["x".repeat(limit)], { "content-length": String(limit) })).toEqual({
      status: 200,
      text: `read:${"x".repeat(limit)}`,
    });
    expect(await post([], { "content-length": "0" })).toEqual({ status: 200, text: "read:" });
  });

  it("stops at the limit and lets the handler answer, whether or not a length was declared", async () => {
    expect(await post(["x".repeat(10), "x".repeat(10), "x".repeat(10)])).toEqual({ status: 413, text: "too large" });
    expect(await post(["x".repeat(limit + 1)], { "content-length": String(limit + 1) })).toEqual({
      status: 413,
      text: "too large",
    });
  });

  it("reads the web Request when the request did not come through Node", async () => {
    const response = await app.request("/", { method: "POST", body: "in-process" });
    expect(await response.text()).toBe("read:in-process");
    expect((await app.request("/", { method: "POST", body: "y".repeat(limit + 1) })).status).toBe(413);
  });
});
