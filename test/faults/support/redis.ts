import type { ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort, spawnOwned, stopChild, tailOf, tempDir, track, waitUntil } from "./processes.ts";

/** A Redis of the check's own on loopback, without persistence, that the check can kill and freeze. */
export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** SIGKILL: gone at once, its counters with it. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, as a host that stopped. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  logTail(chars?: number): string;
}

/** Whether a Redis answers PING on the port within a second. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

export async function startRedis(): Promise<RedisProcess> {
  const dir = tempDir("redis");
  const logPath = join(dir, "redis.log");
  const port = await freePort();
  let child: ChildProcess | undefined;
  let frozen = false;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawnOwned(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { logPath },
    );
    const started = child;
    await waitUntil("Redis to answer PING", async () => started.exitCode === null && (await answersPing(port)), {
      timeoutMs: 15_000,
      explain: () => `exit ${started.exitCode}; log:\n${tailOf(logPath)}`,
    });
  };

  const kill = async () => {
    if (!child) return;
    if (frozen) child.kill("SIGCONT");
    frozen = false;
    await stopChild(child, "SIGKILL");
  };

  await start();
  track({
    name: `Redis on ${port}`,
    stop: kill,
    kill: () => child?.kill("SIGKILL"),
    logTail: () => tailOf(logPath, 1000),
  });

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    freeze() {
      frozen = true;
      child?.kill("SIGSTOP");
    },
    thaw() {
      frozen = false;
      child?.kill("SIGCONT");
    },
    logTail: (chars) => tailOf(logPath, chars),
  };
}
