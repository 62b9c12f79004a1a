import { randomBytes } from "node:crypto";
import { AuthError } from "@latchkey/domain";
import { createInMemoryStores } from "@latchkey/domain/testing";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHook, type HttpHookOptions } from "../src/index.ts";
import { nodeTransport, type Transport } from "../src/transport.ts";
import { answer, closedPortUrl, json, type Reply, startReceiver } from "./receiver.ts";

const KEY_A = randomBytes(32).toString("base64");
const KEY_B = randomBytes(24).toString("base64");
const SECRETS = [`v1,whsec_${KEY_A}`, `v1,whsec_${KEY_B}`];
const PAYLOAD = { user_id: "3f0c1d5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f", claims: { aud: "authenticated", name: "żółw" } };
const { stores } = createInMemoryStores();

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A hook whose endpoint answers as `reply` says; short waits, so that the tests are fast. */
async function hookAnswering(reply: Reply, options: Partial<HttpHookOptions> = {}) {
  const receiver = await startReceiver(reply);
  closers.push(() => receiver.close());
  const caller = createHttpHook({ uri: receiver.url, secrets: SECRETS, timeoutMs: 2_000, backoffMs: 10, ...options });
  return { caller, received: receiver.received };
}

/** The AuthError a call fails with. */
async function failure(work: Promise<unknown>): Promise<AuthError> {
  const error = await work.then(
    () => expect.fail("the call succeeded"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AuthError);
  expect((error as AuthError).message).not.toMatch(/whsec_|KEY/);
  return error as AuthError;
}

/** The Standard Webhooks headers of a request, as a receiver passes them to `verify`. */
const signatureHeaders = (headers: Record<string, string | string[] | undefined>) => ({
  "webhook-id": String(headers["webhook-id"]),
  "webhook-timestamp": String(headers["webhook-timestamp"]),
  "webhook-signature": String(headers["webhook-signature"]),
});

describe("HTTP hook: the request", () => {
  it("POSTs the payload as JSON, with GoTrue's headers", async () => {
    const { caller, received } = await hookAnswering(answer(204));
    const before = Math.floor(Date.now() / 1000);
    expect(await caller.call(PAYLOAD, stores)).toBeNull();
    const [request] = received;
    expect(request?.method).toBe("POST");
    expect(JSON.parse(request!.body)).toEqual(PAYLOAD);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["accept-encoding"]).toBe("identity");
    expect(request?.headers["webhook-id"]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const timestamp = Number(request?.headers["webhook-timestamp"]);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it("signs with every secret, each signature verifying with its own (rotation)", async () => {
    const { caller, received } = await hookAnswering(answer(204));
    await caller.call(PAYLOAD, stores);
    const request = received[0]!;
    const headers = signatureHeaders(request.headers);
    const signatures = headers["webhook-signature"].split(", ");
    expect(signatures).toHaveLength(2);
    // Either secret alone verifies the request as sent, as a receiver holding only one of them does.
    expect(new Webhook(`whsec_${KEY_A}`).verify(request.body, headers)).toEqual(PAYLOAD);
    expect(new Webhook(`whsec_${KEY_B}`).verify(request.body, headers)).toEqual(PAYLOAD);
    const only = (signature: string) => ({ ...headers, "webhook-signature": signature });
    expect(() => new Webhook(`whsec_${KEY_A}`).verify(request.body, only(signatures[0]!))).not.toThrow();
    expect(() => new Webhook(`whsec_${KEY_B}`).verify(request.body, only(signatures[1]!))).not.toThrow();
    expect(() => new Webhook(`whsec_${KEY_A}`).verify(request.body, only(signatures[1]!))).toThrow(
      WebhookVerificationError,
    );
  });

  it("signs the body as sent: a tampered one fails verification", async () => {
    const { caller, received } = await hookAnswering(answer(204));
    await caller.call(PAYLOAD, stores);
    const request = received[0]!;
    const tampered = request.body.replace("authenticated", "service_role");
    expect(tampered).not.toBe(request.body);
    expect(() => new Webhook(`whsec_${KEY_A}`).verify(tampered, signatureHeaders(request.headers))).toThrow(
      WebhookVerificationError,
    );
  });

  it("sends an empty signature with no secrets, as GoTrue does", async () => {
    const { caller, received } = await hookAnswering(answer(204), { secrets: [] });
    await caller.call(PAYLOAD, stores);
    expect(received[0]?.headers["webhook-signature"]).toBe("");
  });
});

describe("HTTP hook: the answer", () => {
  it("reads a JSON answer of 200 or 202, with parameters to its content type", async () => {
    const accepted = answer(202, JSON.stringify({ decision: "continue" }), {
      "Content-Type": "Application/JSON; charset=utf-8",
    });
    const { caller } = await hookAnswering(accepted);
    expect(await caller.call(PAYLOAD, stores)).toEqual({ decision: "continue" });
  });

  it("fails on an answer that is not JSON", async () => {
    const { caller } = await hookAnswering(answer(200, "{not json", { "Content-Type": "application/json" }));
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual(["unexpected_failure", "Error unmarshaling JSON output."]);
  });

  it.each([
    [{}, "Invalid Content-Type: Missing Content-Type header"],
    [
      { "Content-Type": "text/plain; charset=utf-8" },
      "Invalid JSON response. Received content-type: text/plain; charset=utf-8",
    ],
    [{ "Content-Type": "application/" }, "Invalid Content-Type header: mime: expected token after slash"],
    [{ "Content-Type": "application/json; charset" }, "Invalid Content-Type header: mime: invalid media parameter"],
  ])("refuses an answer of content type %j", async (headers, message) => {
    const { caller } = await hookAnswering(answer(200, "{}", headers));
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual(["hook_payload_invalid_content_type", message]);
  });

  it("refuses an answer over the size limit, and takes one at it", async () => {
    const body = JSON.stringify({ padding: "x".repeat(1_000) });
    const over = await hookAnswering(json({ padding: "x".repeat(1_000) }), { maxResponseBytes: body.length - 1 });
    const error = await failure(over.caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual([
      "hook_payload_over_size_limit",
      `Payload size exceeded size limit of ${body.length - 1} bytes`,
    ]);
    const at = await hookAnswering(json({ padding: "x".repeat(1_000) }), { maxResponseBytes: body.length });
    expect(await at.caller.call(PAYLOAD, stores)).toEqual({ padding: "x".repeat(1_000) });
  });

  it("keeps GoTrue's limit of 200 KiB by default", async () => {
    const { caller } = await hookAnswering(json({ padding: "x".repeat(210 * 1024) }));
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual([
      "hook_payload_over_size_limit",
      "Payload size exceeded size limit of 204800 bytes",
    ]);
  });

  it.each([
    [400, "Invalid payload sent to hook"],
    [401, "Hook requires authorization token"],
    [403, "Unexpected status code returned from hook: 403"],
    [500, "Unexpected status code returned from hook: 500"],
  ])("fails on a status of %i, without trying again", async (status, message) => {
    const { caller, received } = await hookAnswering(answer(status, "{}", { "Content-Type": "application/json" }));
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual(["unexpected_failure", message]);
    expect(received).toHaveLength(1);
  });
});

describe("HTTP hook: trying again", () => {
  it("tries again at once after a 503 with a Retry-After, with a new message id", async () => {
    const { caller, received } = await hookAnswering(
      (res, request, index) =>
        index === 0
          ? answer(503, "", { "Retry-After": "1" })(res, request, index)
          : json({ ok: true })(res, request, index),
      { backoffMs: 60_000 },
    );
    expect(await caller.call(PAYLOAD, stores)).toEqual({ ok: true });
    expect(received).toHaveLength(2);
    expect(received[1]?.headers["webhook-id"]).not.toBe(received[0]?.headers["webhook-id"]);
  });

  it("gives every attempt at a delivered message that message's id, each signed anew", async () => {
    const { caller, received } = await hookAnswering(
      (res, request, index) =>
        index === 0 ? answer(503, "", { "Retry-After": "1" })(res, request, index) : answer(204)(res, request, index),
      { backoffMs: 60_000 },
    );
    const messageId = "5b0c5b8e-1d7a-4d5e-9b7e-3c1f0a2d4e6f";
    expect(await caller.call(PAYLOAD, stores, { messageId })).toBeNull();
    expect(received.map((request) => request.headers["webhook-id"])).toEqual([messageId, messageId]);
  });

  it("fails on a 429 without a Retry-After", async () => {
    const { caller, received } = await hookAnswering(answer(429));
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual(["unexpected_failure", "Service currently unavailable due to hook"]);
    expect(received).toHaveLength(1);
  });

  it("follows no redirect: the signed payload goes nowhere but the configured URI", async () => {
    const elsewhere = await startReceiver(json({ claims: {} }));
    try {
      const { caller, received } = await hookAnswering(answer(307, "", { Location: elsewhere.url }));
      const error = await failure(caller.call(PAYLOAD, stores));
      expect([error.code, error.message]).toEqual([
        "unexpected_failure",
        "Unexpected status code returned from hook: 307",
      ]);
      expect(received).toHaveLength(1);
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("fails once every attempt answered 429 with a Retry-After", async () => {
    const { caller, received } = await hookAnswering(answer(429, "", { "Retry-After": "1" }), { attempts: 3 });
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual(["unexpected_failure", "Service currently unavailable due to hook"]);
    expect(received).toHaveLength(3);
  });

  it("tries a hook it cannot reach each attempt, after the backoff, then fails", async () => {
    let attempts = 0;
    const counting: Transport = (uri, init) => {
      attempts += 1;
      return nodeTransport(uri, init);
    };
    const caller = createHttpHook({ uri: await closedPortUrl(), secrets: SECRETS, backoffMs: 50, transport: counting });
    const started = performance.now();
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual([
      "hook_timeout_after_retry",
      "Failed to reach hook after maximum retries",
    ]);
    expect(attempts).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 50 - 5);
  });

  it("fails with hook_timeout when the time is up during the backoff", async () => {
    const caller = createHttpHook({ uri: await closedPortUrl(), secrets: SECRETS, timeoutMs: 100, backoffMs: 5_000 });
    const started = performance.now();
    const error = await failure(caller.call(PAYLOAD, stores));
    expect([error.code, error.message]).toEqual([
      "hook_timeout",
      "Failed to reach hook within maximum time of 0.100000 seconds",
    ]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("fails with hook_timeout when an answer is cut off by the time limit", async () => {
    const { caller } = await hookAnswering(
      (res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write('{"partial":');
      },
      { timeoutMs: 200 },
    );
    const error = await failure(caller.call(PAYLOAD, stores));
    expect(error.code).toBe("hook_timeout");
  });

  it("fails with an AuthError whatever the transport throws", async () => {
    const broken: Transport = async () => {
      throw new RangeError("something odd");
    };
    const caller = createHttpHook({
      uri: "https://hooks.example.com/x",
      secrets: SECRETS,
      attempts: 1,
      transport: broken,
    });
    const error = await failure(caller.call(PAYLOAD, stores));
    expect(error.code).toBe("hook_timeout_after_retry");
  });
});

describe("HTTP hook: its settings", () => {
  it("tells where it is without its secrets", async () => {
    const { caller } = await hookAnswering(answer(204));
    expect(caller.uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
    expect(JSON.stringify(caller)).not.toContain(KEY_A);
  });

  it("refuses settings it cannot call with, naming no secret", () => {
    expect(() => createHttpHook({ uri: "http://example.com/hook", secrets: SECRETS })).toThrow(/supported with http/);
    const bad = `v1,whsec_${KEY_A}!!`;
    expect(() => createHttpHook({ uri: "https://example.com/hook", secrets: [SECRETS[0]!, bad] })).toThrow(
      /secret #2 is not of the form/,
    );
    let refusal: unknown;
    try {
      createHttpHook({ uri: "https://example.com/hook", secrets: [bad] });
    } catch (error) {
      refusal = error;
    }
    expect((refusal as Error).message).toMatch(/secret #1 is not of the form/);
    expect((refusal as Error).message).not.toContain(KEY_A);
  });
});
