import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthError, type AuthSms, isAuthError } from "@latchkey/domain";
import { expect } from "vitest";

/** The SMS most tests send: an E.164 number with its +. */
export const SMS: AuthSms = { kind: "confirmation", to: "+15550100000", otp: "123456" };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The form fields; a field sent twice fails the test. */
  readonly form: Readonly<Record<string, string>>;
}

/** How the stand-in answers: a status with a JSON (or raw) body, or never. */
export type Reply = { readonly status: number; readonly json?: unknown; readonly raw?: string } | "hang";

export interface StandIn {
  readonly url: string;
  readonly requests: RecordedRequest[];
}

const closers: (() => Promise<void>)[] = [];

/** Closes every stand-in started since the last call; for afterEach. */
export async function closeStandIns(): Promise<void> {
  for (const close of closers.splice(0)) await close();
}

/** A provider stand-in on a free local port that records each request and answers with `reply`. */
export async function startStandIn(reply: (request: RecordedRequest) => Reply): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        form: formOf(Buffer.concat(chunks).toString("utf8")),
      };
      requests.push(request);
      const answer = reply(request);
      if (answer === "hang") return;
      const body = answer.raw ?? JSON.stringify(answer.json ?? {});
      res.writeHead(answer.status, { "Content-Type": answer.raw === undefined ? "application/json" : "text/html" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

/** The URL of a port nothing listens on any more. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** The one request the stand-in received. */
export function onlyRequest(standIn: StandIn): RecordedRequest {
  expect(standIn.requests).toHaveLength(1);
  const [request] = standIn.requests;
  if (request === undefined) throw new Error("no request");
  return request;
}

/** The user and password of a Basic Authorization header. */
export function basicCredentials(header: string | undefined): [string, string] {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? "");
  if (!match?.[1]) throw new Error(`not Basic: ${header}`);
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/**
 * Asserts a refusal: AuthError sms_send_failed with GoTrue's clean message, none of `leaks` in it, and the
 * provider's details (each of `inCause`) in its cause, for the log.
 */
export async function expectRefusal(
  sending: Promise<void>,
  leaks: readonly string[],
  inCause: readonly string[] = [],
): Promise<AuthError> {
  const error: unknown = await sending.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!isAuthError(error, "sms_send_failed")) throw new Error(`expected sms_send_failed, got ${String(error)}`);
  expect(error.message).toMatch(/^Error sending \w+ OTP to provider$/);
  for (const leak of leaks) expect(error.message).not.toContain(leak);
  const cause = error.cause instanceof Error ? error.cause.message : "";
  for (const detail of inCause) expect(cause).toContain(detail);
  return error;
}

/** Asserts a failure to retry: an Error that is no AuthError. */
export async function expectTransient(sending: Promise<void>, pattern?: RegExp): Promise<Error> {
  const error: unknown = await sending.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!(error instanceof Error)) throw new Error(`expected an Error, got ${String(error)}`);
  expect(isAuthError(error)).toBe(false);
  if (pattern) expect(error.message).toMatch(pattern);
  return error;
}

function formOf(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(form, key)) throw new Error(`field ${key} sent twice`);
    form[key] = value;
  }
  return form;
}
