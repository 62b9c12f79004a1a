// Better Auth (https://better-auth.com), a TypeScript auth library an app could use instead of Latchkey, served as
// its documentation serves it on Hono: its handler at /api/auth/*, PostgreSQL through a `pg` pool of the server's
// size (its Kysely adapter), email and password on. Passwords are hashed with argon2id at the server's own cost
// (its default is scrypt), so that a sign-in costs both the same hashing. Its rate limiter is off, as the
// server's per-address limits are raised: one load generator sends everything. Its tables go into a database of
// their own, made by the bench; they are created here at start with its own migrations.

import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { recommendedArgon2 } from "@latchkey/server";
import { hash, verify } from "@node-rs/argon2";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { Hono } from "hono";
import pg from "pg";

const port = Number(process.env["PORT"]);
const baseURL = `http://127.0.0.1:${port}`;
// @node-rs/argon2's Algorithm is a const enum; 2 is Argon2id.
const argon2id = { ...recommendedArgon2, algorithm: 2 };

const auth = betterAuth({
  baseURL,
  secret: randomBytes(32).toString("hex"),
  database: new pg.Pool({
    connectionString: process.env["DATABASE_URL"],
    max: Number(process.env["POOL_SIZE"] || "10"),
  }),
  emailAndPassword: {
    enabled: true,
    password: {
      hash: (password) => hash(password, argon2id),
      verify: ({ hash: stored, password }) => verify(stored, password),
    },
  },
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const app = new Hono();
app.on(["GET", "POST"], "/api/auth/*", (c) => auth.handler(c.req.raw));
app.get("/ready", (c) => c.json({ ok: true }));
serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
// A normal exit on SIGTERM, so that --cpu-prof (BENCH_FLOOR_NODE_OPTIONS) writes its profile.
process.once("SIGTERM", () => process.exit(0));
