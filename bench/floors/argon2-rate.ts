// The hashing ceilings: how many argon2id hashes or verifications (the first argument) this machine completes per
// second with the server's own parameters, `concurrency` at a time on libuv's thread pool (all cores, when it
// exceeds them). Prints one JSON line.

import { recommendedArgon2 } from "@latchkey/server";
import { hash, verify } from "@node-rs/argon2";

const operation = process.argv[2];
if (operation !== "hash" && operation !== "verify")
  throw new Error(`usage: argon2-rate.ts hash|verify concurrency warmup seconds`);
const [concurrency, warmupSeconds, seconds] = process.argv.slice(3).map(Number) as [number, number, number];
// @node-rs/argon2's Algorithm is a const enum; 2 is Argon2id.
const options = { ...recommendedArgon2, algorithm: 2 };
const password = "correct horse battery staple";
const stored = await hash(password, options);

async function rate(operation: () => Promise<unknown>) {
  const run = async (forMs: number) => {
    const latencies: number[] = [];
    const until = performance.now() + forMs;
    const lane = async () => {
      while (performance.now() < until) {
        const started = performance.now();
        await operation();
        latencies.push(performance.now() - started);
      }
    };
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await Promise.all(Array.from({ length: concurrency }, lane));
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    return {
      perSecond: (latencies.length * 1000) / elapsedMs,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      cpuPercent: ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100,
    };
  };
  await run(warmupSeconds * 1000);
  return run(seconds * 1000);
}

const figures = await rate(operation === "hash" ? () => hash(password, options) : () => verify(stored, password));
console.log(JSON.stringify({ ...figures, peakRssMiB: process.resourceUsage().maxRSS / 1024 }));
