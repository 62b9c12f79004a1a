import type { RateCount, RateDecision, RateLimiter } from "@latchkey/domain";
import { Redis, type Result } from "ioredis";

/** Where the limiter's counters live unless told otherwise: apart from anything else stored in the same Redis. */
export const DEFAULT_RATE_LIMIT_PREFIX = "latchkey:ratelimit:";

const COMMAND = "latchkeyRateLimit";
const PEEK_COMMAND = "latchkeyRateLimitPeek";
const REFUND_COMMAND = "latchkeyRateLimitRefund";

// One fixed window per key, counted in one atomic step: the first INCR creates the key and starts its window, which
// then ends when the key expires. Later events never move the expiry. A key found without one (left by anything but
// this script, which always sets it) gets it now, since a counter that never expires would refuse its key forever.
// Returns the count and the milliseconds left in the window.
const SCRIPT = `
local count = redis.call("INCR", KEYS[1])
local ttl = redis.call("PTTL", KEYS[1])
if count == 1 or ttl < 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

// The count so far and the milliseconds left, read together and changing nothing; a missing key counts 0.
const PEEK_SCRIPT = `
local count = tonumber(redis.call("GET", KEYS[1]) or "0")
return { count, redis.call("PTTL", KEYS[1]) }
`;

// One event taken back, never below zero; DECR keeps the key's expiry, so the window ends when it would have.
const REFUND_SCRIPT = `
if tonumber(redis.call("GET", KEYS[1]) or "0") > 0 then redis.call("DECR", KEYS[1]) end
return 0
`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    /** Defined by createRedisRateLimiter: counts one event under `key` and returns [count, milliseconds left]. */
    latchkeyRateLimit(key: string, windowMilliseconds: number): Result<unknown, Context>;
    /** Defined by createRedisRateLimiter: returns [count, milliseconds left] under `key`, counting nothing. */
    latchkeyRateLimitPeek(key: string): Result<unknown, Context>;
    /** Defined by createRedisRateLimiter: takes back one event under `key`, never below zero. */
    latchkeyRateLimitRefund(key: string): Result<unknown, Context>;
  }
}

/** A RateLimiter whose windows live in Redis, so every instance of the server shares them. */
export function createRedisRateLimiter(redis: Redis, options: { prefix?: string } = {}): RateLimiter {
  const prefix = options.prefix ?? DEFAULT_RATE_LIMIT_PREFIX;
  // EVALSHA, and EVAL once when Redis does not know the script yet (after a restart, or a SCRIPT FLUSH).
  redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: SCRIPT });
  redis.defineCommand(PEEK_COMMAND, { numberOfKeys: 1, lua: PEEK_SCRIPT });
  redis.defineCommand(REFUND_COMMAND, { numberOfKeys: 1, lua: REFUND_SCRIPT });
  return {
    async consume(key, limit, windowSeconds): Promise<RateDecision> {
      // PEXPIRE takes whole milliseconds; a window of at least one keeps the key from expiring at once.
      const windowMilliseconds = Math.max(1, Math.ceil(windowSeconds * 1000));
      const [count, millisecondsLeft] = countAndTtl(
        await ask(() => redis.latchkeyRateLimit(`${prefix}${key}`, windowMilliseconds)),
      );
      return decide(count <= limit, millisecondsLeft);
    },
    async peek(key, limit): Promise<RateDecision> {
      const [count, millisecondsLeft] = countAndTtl(await ask(() => redis.latchkeyRateLimitPeek(`${prefix}${key}`)));
      return decide(count < limit, millisecondsLeft);
    },
    async counted(key): Promise<RateCount> {
      const [count, millisecondsLeft] = countAndTtl(await ask(() => redis.latchkeyRateLimitPeek(`${prefix}${key}`)));
      return count > 0
        ? { events: count, secondsLeft: wholeSecondsLeft(millisecondsLeft) }
        : { events: 0, secondsLeft: 0 };
    },
    async reset(keys): Promise<void> {
      // One DEL for every key: one round trip, and a missing key is no error.
      if (keys.length > 0) await ask(() => redis.del(...keys.map((key) => `${prefix}${key}`)));
    },
    async refund(key): Promise<void> {
      await ask(() => redis.latchkeyRateLimitRefund(`${prefix}${key}`));
    },
  };
}

async function ask(command: () => Promise<unknown>): Promise<unknown> {
  try {
    return await command();
  } catch (error) {
    // ioredis's own messages do not say what was being done, and the one for a command sent while disconnected
    // ("Stream isn't writeable and enableOfflineQueue options is false") does not plainly say why.
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.includes("enableOfflineQueue") ? "not connected" : message;
    throw new Error(`rate limiter: Redis did not answer: ${reason}`, { cause: error });
  }
}

function decide(allowed: boolean, millisecondsLeft: number): RateDecision {
  return allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: wholeSecondsLeft(millisecondsLeft) };
}

/** At least one: PTTL is negative for a key without an expiry, which the next event gives one. */
function wholeSecondsLeft(millisecondsLeft: number): number {
  return Math.max(1, Math.ceil(millisecondsLeft / 1000));
}

function countAndTtl(reply: unknown): [number, number] {
  if (Array.isArray(reply) && reply.length === 2 && typeof reply[0] === "number" && typeof reply[1] === "number") {
    return [reply[0], reply[1]];
  }
  throw new Error(`rate limiter: unexpected reply from Redis: ${JSON.stringify(reply)}`);
}

/** How long one command may wait for its reply before it fails. Counting an event takes well under a millisecond. */
const COMMAND_TIMEOUT_MS = 1_000;
/** How long one connection attempt may take. */
const CONNECT_TIMEOUT_MS = 2_000;

/** Hears when Redis stops being reachable and when it is back, once each, however often the client retries. */
export interface RedisConnectionEvents {
  /** A connection attempt failed or the connection broke; not told again until `onReachable`. */
  onUnreachable(error: Error): void;
  /** Connected and ready again after `onUnreachable`; not told for the first connection. */
  onReachable(): void;
}

/**
 * A Redis client for REDIS_URL (redis:// or rediss://, which means TLS), connecting at once. Made to fail fast
 * rather than wait: while Redis is unreachable every command rejects, and the client keeps reconnecting in the
 * background (every 2 s at most), so the limiter works again as soon as Redis is back. ioredis reports an error on
 * every attempt; `events` hears only the changes (without a listener ioredis would print every one itself).
 */
export function connectRedis(url: string, events: RedisConnectionEvents): Redis {
  const redis = new Redis(url, {
    // Connect now: a wrong address or password shows in the log at start. The server migrates its database before
    // it listens, so the connection is normally ready by the first request; commands sent before that fail.
    lazyConnect: false,
    // A command sent while disconnected rejects at once. Queued, it would wait for a reconnection (seconds during
    // an outage, with the queue growing meanwhile), then count its event long after its request gave up.
    enableOfflineQueue: false,
    // A command in flight when the connection drops rejects at once rather than being resent after reconnecting:
    // whether its INCR ran is unknown, and its request should not wait for the answer.
    maxRetriesPerRequest: 0,
    // A connection that goes silent without closing (a network partition, a stopped host) is noticed by no error:
    // this bounds the wait for each reply.
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  let unreachable = false;
  redis.on("error", (error: Error) => {
    if (unreachable) return;
    unreachable = true;
    events.onUnreachable(error);
  });
  redis.on("ready", () => {
    if (!unreachable) return;
    unreachable = false;
    events.onReachable();
  });
  return redis;
}

/** Where REDIS_URL points, as `host:port`, without its user or password: what a log line may say. */
export function redisAddress(url: string): string {
  try {
    const { hostname, port } = new URL(url);
    return `${hostname}:${port || "6379"}`;
  } catch {
    return "(REDIS_URL is not a URL)";
  }
}
