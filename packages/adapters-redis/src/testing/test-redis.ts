import { connect } from "node:net";

const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

/**
 * The Redis the tests use: TEST_REDIS_URL when set (CI sets it, and a Redis that then does not answer fails the
 * tests), else this machine's on the default port if it answers, else none, and the tests that need one are
 * skipped, as on a fresh machine with only Node.
 */
export async function testRedisUrl(): Promise<string | undefined> {
  const configured = process.env["TEST_REDIS_URL"];
  if (configured) return configured;
  return (await answers(LOCAL_REDIS_URL)) ? LOCAL_REDIS_URL : undefined;
}

/** Why a test that needs the test Redis is skipped on a machine without one. */
export const NO_TEST_REDIS = "no Redis: set TEST_REDIS_URL, or run one on 127.0.0.1:6379";

function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
