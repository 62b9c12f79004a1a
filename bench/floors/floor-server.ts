// The ceilings the server's scenarios are measured against: the least any server of this stack does for such a
// request. `http` answers a small JSON; `read` adds one indexed SELECT of a user row; `rotation` adds one
// transaction that locks a session row by its key, updates it and inserts a token row.

import { randomBytes, randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pg from "pg";

const kind = process.argv[2];
const port = Number(process.env["PORT"]);
const poolSize = Number(process.env["POOL_SIZE"] || "10");
const app = new Hono();

if (kind === "http") {
  app.get("/floor", (c) => c.json({ ok: true, name: "latchkey-floor" }));
} else if (kind === "read") {
  const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: poolSize });
  const userIds = (process.env["USER_IDS"] ?? "").split(",");
  let next = 0;
  app.get("/floor", async (c) => {
    const id = userIds[next++ % userIds.length];
    const { rows } = await pool.query("SELECT * FROM users WHERE id = $1", [id]);
    return c.json(rows[0]);
  });
} else if (kind === "rotation") {
  const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: poolSize });
  // The load generator names the session, from a pool in which no two requests in flight share one, as refresh's
  // tokens do.
  app.post("/floor", async (c) => {
    const sessionId = c.req.query("session") ?? "";
    if (!/^[0-9a-f-]{36}$/.test(sessionId)) return c.json({ error: "no session named" }, 400);
    const client = await pool.connect();
    try {
      const tokenId = randomUUID();
      await client.query("BEGIN");
      const { rowCount } = await client.query("SELECT id FROM bench_floor.sessions WHERE id = $1 FOR UPDATE", [
        sessionId,
      ]);
      if (rowCount === 0) {
        await client.query("ROLLBACK");
        return c.json({ error: "no such session" }, 404);
      }
      await client.query("UPDATE bench_floor.sessions SET refreshed_at = now(), refresh_token_id = $2 WHERE id = $1", [
        sessionId,
        tokenId,
      ]);
      await client.query(
        "INSERT INTO bench_floor.tokens (id, session_id, token_hash, created_at) VALUES ($1, $2, $3, now())",
        [tokenId, sessionId, randomBytes(32).toString("base64url")],
      );
      await client.query("COMMIT");
      return c.json({ session_id: sessionId, token_id: tokenId });
    } finally {
      client.release();
    }
  });
} else {
  throw new Error(`usage: floor-server.ts http|read|rotation (got ${kind})`);
}

app.get("/ready", (c) => c.json({ ok: true }));
serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
// A normal exit on SIGTERM, so that --cpu-prof (BENCH_FLOOR_NODE_OPTIONS) writes its profile.
process.once("SIGTERM", () => process.exit(0));
