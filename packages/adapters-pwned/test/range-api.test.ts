import { createHash } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createRangeApiPwnedPasswords, DEFAULT_PWNED_PASSWORDS_USER_AGENT, PwnedPasswordsError } from "../src/index.ts";

interface Received {
  readonly method: string;
  readonly path: string;
  readonly padding: string | undefined;
  readonly userAgent: string | undefined;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const sha1 = (password: string) => createHash("sha1").update(password).digest("hex").toUpperCase();
const LEAKED = "password123";
const CLEAN = "a passphrase nobody leaked";

/** A range answer as the service pads it: the leaked suffix (lower case, as a stand-in may write it), padding, CRLF. */
function rangeOf(prefix: string, extra: string[] = []): string {
  const leaked = sha1(LEAKED);
  const lines = [`${"0".repeat(35)}:3`, ...extra];
  if (leaked.startsWith(prefix)) lines.push(`${leaked.slice(5).toLowerCase()}:2254650`);
  const clean = sha1(CLEAN);
  // A padding line for the clean password's own suffix: count 0 is no breach.
  if (clean.startsWith(prefix)) lines.push(`${clean.slice(5)}:0`);
  return lines.join("\r\n");
}

type Reply = (path: string) => { status?: number; body: string } | "hang";

/** A stand-in of the range API: records each request, answers as `reply` says (or never, for "hang"). */
async function rangeApi(reply: Reply = (path) => ({ body: rangeOf(path.slice("/range/".length)) })) {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? "";
    received.push({
      method: req.method ?? "",
      path,
      padding: req.headers["add-padding"] as string | undefined,
      userAgent: req.headers["user-agent"],
    });
    const answer = reply(path);
    if (answer === "hang") return;
    res.writeHead(answer.status ?? 200, { "Content-Type": "text/plain" });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** A port nothing listens on: one a server had, closed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function rejection(work: Promise<unknown>): Promise<Error> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PwnedPasswordsError);
  return error as Error;
}

describe("the Pwned Passwords range API", () => {
  it("sends only the hash's first 5 digits, padded, with the user agent, and finds a leaked suffix", async () => {
    const api = await rangeApi();
    const pwned = createRangeApiPwnedPasswords({ url: `${api.url}/`, userAgent: "latchkey-test" });
    expect(await pwned.check(LEAKED)).toBe("pwned");
    expect(api.received).toEqual([
      { method: "GET", path: `/range/${sha1(LEAKED).slice(0, 5)}`, padding: "true", userAgent: "latchkey-test" },
    ]);
  });

  it("finds a password whose suffix is absent, or only a padding line, clean; GoTrue's user agent by default", async () => {
    const api = await rangeApi();
    const pwned = createRangeApiPwnedPasswords({ url: api.url });
    expect(await pwned.check(CLEAN)).toBe("clean");
    expect(await pwned.check("another one, never seen")).toBe("clean");
    expect(api.received.map((request) => request.userAgent)).toEqual([
      DEFAULT_PWNED_PASSWORDS_USER_AGENT,
      DEFAULT_PWNED_PASSWORDS_USER_AGENT,
    ]);
  });

  it("asks once per range within the cache's time, again after it, and again after a failure", async () => {
    let now = 0;
    let failing = true;
    const api = await rangeApi((path) => (failing ? { status: 503, body: "busy" } : { body: rangeOf(path.slice(7)) }));
    const pwned = createRangeApiPwnedPasswords({ url: api.url, now: () => now, cache: { ttlMs: 60_000 } });
    await rejection(pwned.check(LEAKED));
    failing = false;
    expect(await Promise.all([pwned.check(LEAKED), pwned.check(LEAKED)])).toEqual(["pwned", "pwned"]);
    now = 59_999;
    expect(await pwned.check(LEAKED)).toBe("pwned");
    expect(api.received).toHaveLength(2);
    now = 60_000;
    expect(await pwned.check(LEAKED)).toBe("pwned");
    expect(api.received).toHaveLength(3);
  });

  it("keeps a bounded number of ranges, the newest", async () => {
    const api = await rangeApi();
    const pwned = createRangeApiPwnedPasswords({ url: api.url, cache: { maxEntries: 1 } });
    await pwned.check(LEAKED);
    await pwned.check(CLEAN);
    await pwned.check(CLEAN);
    await pwned.check(LEAKED);
    expect(api.received.map((request) => request.path.slice(7))).toEqual([
      sha1(LEAKED).slice(0, 5),
      sha1(CLEAN).slice(0, 5),
      sha1(LEAKED).slice(0, 5),
    ]);
  });

  it("rejects when the service is down, too slow, or answers what is not a range", async () => {
    const down = createRangeApiPwnedPasswords({ url: await closedPort() });
    expect((await rejection(down.check(LEAKED))).message).toMatch(
      /^range request failed: fetch failed: .*ECONNREFUSED/,
    );

    const slow = createRangeApiPwnedPasswords({ url: (await rangeApi(() => "hang")).url, timeoutMs: 200 });
    const started = Date.now();
    expect((await rejection(slow.check(LEAKED))).message).toBe("range request failed: no answer within 200 ms");
    expect(Date.now() - started).toBeLessThan(2_000);

    const failing = createRangeApiPwnedPasswords({ url: (await rangeApi(() => ({ status: 429, body: "" }))).url });
    expect((await rejection(failing.check(LEAKED))).message).toBe("range request failed: answered 429");
    const html = createRangeApiPwnedPasswords({ url: (await rangeApi(() => ({ body: "<html>portal</html>" }))).url });
    expect((await rejection(html.check(LEAKED))).message).toMatch(/not a range/);
    const empty = createRangeApiPwnedPasswords({ url: (await rangeApi(() => ({ body: "" }))).url });
    expect((await rejection(empty.check(LEAKED))).message).toMatch(/empty/);
  });

  it("abandons an answer larger than any range", async () => {
    const lines = Array.from({ length: 14_000 }, (_, i) => `${i.toString(16).toUpperCase().padStart(35, "0")}:0`);
    const api = await rangeApi((path) => ({ body: rangeOf(path.slice(7), lines) }));
    const pwned = createRangeApiPwnedPasswords({ url: api.url });
    expect((await rejection(pwned.check(LEAKED))).message).toMatch(/larger than \d+ bytes/);
  });
});

describe("the bloom-filter cache of leaked-password checks", () => {
  const bloom = { items: 100_000, falsePositives: 0.0000099 };

  it("finds a password of a range fetched once pwned without a request, even while the service is down", async () => {
    let down = false;
    const api = await rangeApi((path) => (down ? { status: 503, body: "down" } : { body: rangeOf(path.slice(7)) }));
    // No prefix cache: what answers after the first check is the filter alone.
    const pwned = createRangeApiPwnedPasswords({ url: api.url, bloom, cache: { maxEntries: 0 } });
    expect(await pwned.check(LEAKED)).toBe("pwned");
    down = true;
    expect(await pwned.check(LEAKED)).toBe("pwned");
    expect(await pwned.check(LEAKED)).toBe("pwned");
    expect(api.received).toHaveLength(1);

    // Without the filter, the same check needs the service.
    const plain = createRangeApiPwnedPasswords({ url: api.url, cache: { maxEntries: 0 } });
    await rejection(plain.check(LEAKED));
  });

  it("still asks about a clean password (padding lines are no breach), or lets the prefix cache answer", async () => {
    const api = await rangeApi();
    const uncached = createRangeApiPwnedPasswords({ url: api.url, bloom, cache: { maxEntries: 0 } });
    expect(await uncached.check(CLEAN)).toBe("clean");
    expect(await uncached.check(CLEAN)).toBe("clean");
    expect(api.received).toHaveLength(2);

    const cached = createRangeApiPwnedPasswords({ url: api.url, bloom });
    expect(await cached.check(CLEAN)).toBe("clean");
    expect(await cached.check(CLEAN)).toBe("clean");
    expect(api.received).toHaveLength(3);
  });

  it("adds a range shared by concurrent checks once, and a failed one not at all", async () => {
    let failing = true;
    const api = await rangeApi((path) => (failing ? { status: 503, body: "busy" } : { body: rangeOf(path.slice(7)) }));
    const pwned = createRangeApiPwnedPasswords({ url: api.url, bloom });
    await rejection(pwned.check(LEAKED));
    failing = false;
    expect(await Promise.all([pwned.check(LEAKED), pwned.check(LEAKED)])).toEqual(["pwned", "pwned"]);
    expect(api.received).toHaveLength(2);
  });

  it("clears the filter when a range would take it past 80% of its items, then adds that range", async () => {
    // Three leaked passwords of three ranges; each range has 4 breached suffixes, the last 1.
    const [first, second, third] = ["first leaked", "second leaked", "third leaked"].map(sha1) as [
      string,
      string,
      string,
    ];
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(35, "0")}:1`);
    const ranges = new Map([
      [first.slice(0, 5), [`${first.slice(5)}:9`, ...filler(3)]],
      [second.slice(0, 5), [`${second.slice(5)}:9`, ...filler(3)]],
      [third.slice(0, 5), [`${third.slice(5)}:9`]],
    ]);
    expect(ranges.size).toBe(3);
    let down = false;
    const api = await rangeApi((path) =>
      down
        ? { status: 503, body: "down" }
        : { body: [...(ranges.get(path.slice(7)) ?? []), `${"F".repeat(35)}:0`].join("\r\n") },
    );
    // 10 items: 8 may be added before the filter is cleared.
    const pwned = createRangeApiPwnedPasswords({
      url: api.url,
      bloom: { items: 10, falsePositives: 0.01 },
      cache: { maxEntries: 0 },
    });
    const known = async () => {
      down = true;
      const answers = await Promise.all(
        ["first leaked", "second leaked", "third leaked"].map((password) =>
          pwned.check(password).catch(() => "not known"),
        ),
      );
      down = false;
      return answers;
    };

    expect(await pwned.check("first leaked")).toBe("pwned");
    expect(await pwned.check("second leaked")).toBe("pwned");
    // 8 of 10 items: not past 80%, both ranges remembered.
    expect(await known()).toEqual(["pwned", "pwned", "not known"]);
    expect(await pwned.check("third leaked")).toBe("pwned");
    // 9: cleared, then the third range added.
    expect(await known()).toEqual(["not known", "not known", "pwned"]);
  });
});
