import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { expect, it } from "vitest";
import { startPostgresCluster } from "../support/cluster.ts";
import { startMailSink } from "../support/mail.ts";
import { track, waitUntil } from "../support/processes.ts";
import { faultSuiteUnavailable } from "../support/requirements.ts";
import { startServer } from "../support/server.ts";

const SITE = "http://localhost:3000";
/** The provider timeout (adapters-oauth's PROVIDER_TIMEOUT_MS) and some room: a request waits at most this long. */
const AT_MOST_MS = 12_000;

/** An issuer that takes connections and never answers them: a provider whose host is up and its service is not. */
async function startSilentIssuer() {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createServer((socket) => {
    // Requests, not connections: a client may open a spare connection it never sends on.
    socket.on("data", (data) => {
      requests += data.toString("latin1").match(/^GET /gm)?.length ?? 0;
    });
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  track({ name: "silent issuer", stop, kill: () => server.close() });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests: () => requests };
}

interface Start {
  readonly ms: number;
  /** null when no answer came within the time given. */
  readonly status: number | null;
  readonly location: URL | null;
}

async function authorize(baseUrl: string, timeoutMs: number): Promise<Start> {
  const started = Date.now();
  try {
    const response = await fetch(
      `${baseUrl}/authorize?provider=google&redirect_to=${encodeURIComponent(`${SITE}/welcome`)}`,
      { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) },
    );
    await response.arrayBuffer();
    const location = response.headers.get("location");
    return {
      ms: Date.now() - started,
      status: response.status,
      location: location === null ? null : new URL(location),
    };
  } catch {
    return { ms: Date.now() - started, status: null, location: null };
  }
}

const summary = (starts: readonly Start[]) =>
  `statuses ${[...new Set(starts.map((start) => start.status ?? "none in time"))].join(", ")}, slowest ${Math.max(...starts.map((start) => start.ms))} ms`;

describeIfAvailable(faultSuiteUnavailable, "an OIDC issuer that does not answer", () => {
  it("sends sign-ins back to the app with the error, within the provider timeout, asking the issuer once", async () => {
    const cluster = await startPostgresCluster();
    const sink = await startMailSink();
    const issuer = await startSilentIssuer();
    const server = await startServer({
      databaseUrl: cluster.url,
      smtpPort: sink.port,
      env: {
        AUTH_EXTERNAL_GOOGLE_ENABLED: "true",
        AUTH_EXTERNAL_GOOGLE_CLIENT_ID: "faults-client",
        AUTH_EXTERNAL_GOOGLE_SECRET: "faults-secret",
        AUTH_EXTERNAL_GOOGLE_URL: issuer.url,
        AUTH_URI_ALLOW_LIST: `${SITE}/**`,
      },
    });

    // Ten people press "Sign in with Google" at once while its issuer hangs.
    const burst = await Promise.all(Array.from({ length: 10 }, () => authorize(server.url, 40_000)));
    const requestsAfterBurst = issuer.requests();
    // And then five more, one after another: the failure is remembered for a while, so they need not wait again.
    const after: Start[] = [];
    for (let i = 0; i < 5; i++) after.push(await authorize(server.url, 2_000));
    const failureLines = () =>
      server
        .logLines()
        .filter((line) => line["msg"] === "OAuth provider could not be reached" || line["msg"] === "request failed");
    // The log is written as the answers go: wait for the last lines.
    await waitUntil("the failures logged", () => failureLines().length >= 15, { timeoutMs: 2_000 }).catch(() => {});
    const logged = failureLines();
    const report = [
      `burst of 10 /authorize: ${summary(burst)}; the issuer was asked ${requestsAfterBurst} times`,
      `5 more, one by one: ${summary(after)}; the issuer was asked ${issuer.requests() - requestsAfterBurst} more times`,
      `first answer: ${burst[0]?.status} ${burst[0]?.location ?? "(no redirect)"}`,
      `log lines: ${logged.map((line) => `${line["msg"]} (${line["provider"] ?? ""}: ${line["reason"] ?? ""})`).join("; ")}`,
    ].join("\n");
    console.info(`OIDC issuer down:\n${report}`);

    for (const start of [...burst, ...after]) {
      expect.soft(start.status, report).toBe(302);
      expect.soft(start.location?.origin, report).toBe(SITE);
      expect.soft(start.location?.pathname, report).toBe("/welcome");
      expect.soft(start.location?.searchParams.get("error_code"), report).toBe("service_unavailable");
      expect
        .soft(start.location?.searchParams.get("error_description"), report)
        .toBe("Unable to start the sign-in with the external provider");
    }
    expect.soft(Math.max(...burst.map((start) => start.ms)), report).toBeLessThan(AT_MOST_MS);
    expect.soft(Math.max(...after.map((start) => start.ms)), report).toBeLessThan(500);
    expect.soft(requestsAfterBurst, report).toBe(1);
    expect.soft(issuer.requests(), report).toBe(1);
    expect.soft(logged.length, report).toBe(15);
    expect
      .soft(
        logged.every((line) => line["provider"] === "google" && /OpenID configuration/.test(`${line["reason"]}`)),
        report,
      )
      .toBe(true);
  });
});
