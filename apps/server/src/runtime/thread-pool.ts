import { availableParallelism } from "node:os";

// Imported first by main.ts: libuv reads UV_THREADPOOL_SIZE when its pool first starts. Password hashing takes up
// to one thread per core (adapters/argon2-password-hasher.ts); the rest stay free for DNS lookups and file reads.
// libuv's default, 4, would leave cores idle on a larger machine. An operator's own setting wins.
process.env["UV_THREADPOOL_SIZE"] ??= String(availableParallelism() + 2);
