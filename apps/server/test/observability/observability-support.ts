import { createServer } from "node:net";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { SignJWT } from "jose";
import { TEST_JWT_SECRET } from "../support/start-test-server.ts";

/** Unregisters the global providers a server with tracing or metrics set, for the next server of the file. */
export function resetOpenTelemetry(): void {
  metrics.disable();
  trace.disable();
  context.disable();
  propagation.disable();
}

/**
 * Sets the OTEL_ variables the SDK reads itself in process.env (it reads nothing else), and returns what puts back
 * what was there before.
 */
export function setProcessEnv(env: Readonly<Record<string, string>>): () => void {
  const saved = Object.entries(env).map(([name]) => [name, process.env[name]] as const);
  for (const [name, value] of Object.entries(env)) process.env[name] = value;
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** A port free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The value of the first sample line of `name` whose labels include every one of `labels`. */
export function sample(scrape: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of scrape.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return undefined;
}

/** A service_role token signed with the test servers' JWT_SECRET, for the admin API. */
export const serviceRoleToken = (): Promise<string> =>
  new SignJWT({ role: "service_role" })
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
