import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestServer } from "@latchkey/server/testing";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";

/** A Standard Webhooks secret as GoTrue's settings write one. */
export const secretOf = () => `v1,whsec_${randomBytes(32).toString("base64")}`;

/**
 * How a handler answers: a status, a body (JSON, or the text as is when `contentType` names another type), after a
 * delay if one is given.
 */
type Answer = { status: number; body?: unknown; contentType?: string; delayMs?: number };
/** One call received: where, what, whether its signature verified, its `webhook-id` header, and when (ms). */
type Call = { path: string; payload: Record<string, any>; verified: boolean; webhookId: string; receivedAt: number };
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A hook receiver as an app would run one: it verifies each call's signature with the secret it knows (the
 * standardwebhooks library, as Supabase's docs show) and answers as each path's handler says.
 */
export async function startReceiver(knownSecret: string) {
  const webhook = new Webhook(knownSecret.replace(/^v1,/, ""));
  const calls: Call[] = [];
  const handlers = new Map<string, (payload: Record<string, any>) => Answer>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const verified = verifies(webhook, body, req.headers);
      const payload = JSON.parse(body) as Record<string, any>;
      const path = req.url ?? "/";
      calls.push({ path, payload, verified, webhookId: String(req.headers["webhook-id"]), receivedAt: Date.now() });
      const answer = verified
        ? (handlers.get(path)?.(payload) ?? { status: 204 })
        : { status: 401, body: { error: "bad signature" } };
      const send = () => {
        // The caller may have given up waiting (a hook that does not answer in time).
        if (res.destroyed) return;
        if (answer.body === undefined) return res.writeHead(answer.status).end();
        const contentType = answer.contentType ?? "application/json";
        const asText = contentType !== "application/json" && typeof answer.body === "string";
        res.writeHead(answer.status, { "Content-Type": contentType });
        res.end(asText ? answer.body : JSON.stringify(answer.body));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    calls,
    callsTo: (path: string) => calls.filter((call) => call.path === path),
    on: (path: string, handler: (payload: Record<string, any>) => Answer) => void handlers.set(path, handler),
    /** The first call to `path` (that `matches`) received so far or arriving within `timeoutMs`. */
    waitFor: async (path: string, matches: (call: Call) => boolean = () => true, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = calls.find((call) => call.path === path && matches(call));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching call to ${path} arrived within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function verifies(webhook: Webhook, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    webhook.verify(body, {
      "webhook-id": String(headers["webhook-id"]),
      "webhook-timestamp": String(headers["webhook-timestamp"]),
      "webhook-signature": String(headers["webhook-signature"]),
    });
    return true;
  } catch {
    return false;
  }
}

/** The settings of hook `name` (CUSTOM_ACCESS_TOKEN, ...) calling `receiver` at `path`, signed with `secrets`. */
export function httpHook(receiver: Receiver, name: string, path: string, secrets: string) {
  return {
    [`AUTH_HOOK_${name}_ENABLED`]: "true",
    [`AUTH_HOOK_${name}_URI`]: receiver.url(path),
    [`AUTH_HOOK_${name}_SECRETS`]: secrets,
  };
}

/** How many sessions of `userId` the server's database holds. */
export async function sessionCount(server: TestServer, userId: string): Promise<number> {
  const result = await server.db.db.execute(
    sql`SELECT count(*)::int AS n FROM ${server.db.schema.sessions} WHERE user_id = ${userId}`,
  );
  return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
}

/**
 * A hook function in the server's database that keeps every payload it is sent in `<schema>.<table>` and answers
 * nothing of note, as an app's function that leaves the sending to a job of its own would.
 */
export async function createKeepingFunction(
  server: TestServer,
  { schema, name, table }: { schema: string; name: string; table: string },
): Promise<void> {
  const statements = [
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE ${schema}.${table} (id serial PRIMARY KEY, event jsonb NOT NULL)`,
    `CREATE FUNCTION ${schema}.${name}(event jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO ${schema}.${table} (event) VALUES (event);
         RETURN '{}'::jsonb;
       END $$`,
  ];
  for (const statement of statements) await server.db.db.execute(sql.raw(statement));
}
