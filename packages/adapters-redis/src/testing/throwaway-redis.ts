import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** A redis-server of a test's own on a free loopback port, without persistence, that the test can kill and restart. */
export interface ThrowawayRedis {
  readonly url: string;
  /** SIGKILL, and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty) and waits until it answers. */
  start(): Promise<void>;
}

/** Why a test that starts a Redis of its own (it needs `redis-server` on the PATH) is skipped; undefined where it can. */
export const missingRedisServerProgram: string | undefined =
  spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0
    ? undefined
    : "no redis-server on the PATH, to start and stop a Redis of the test's own";

/** Starts one; `stop` it after the test (killing it is not enough: a killed one can be started again). */
export async function startThrowawayRedis(): Promise<ThrowawayRedis & { stop(): Promise<void> }> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, "exit");
    running.kill("SIGKILL");
    await exited;
  };
  const start = async () => {
    if (child) return;
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    for (let waited = 0; !(await answersPing(port)); waited += 50) {
      if (waited > 10_000 || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`);
      await sleep(50);
    }
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, kill, start, stop: kill };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no free TCP port");
  return address.port;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}
