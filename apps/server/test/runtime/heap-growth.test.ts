import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const heapGrowth = fileURLToPath(new URL("../../src/runtime/heap-growth.ts", import.meta.url));

// Allocates like a server under load: most objects die young, some live across a few batches (as request state
// lives across a database round trip) and reach the old generation. Prints the largest heap V8 kept.
const workload = `
  ${"IMPORT"}
  const v8 = await import("node:v8");
  const live = [];
  let largest = 0;
  for (let round = 0; round < 4000; round++) {
    live.push(Array.from({ length: 2000 }, (_, i) => ({ i, text: "x".repeat(20) + i, pair: [i, i + 1] })));
    if (live.length > 20) live.shift();
    if (round % 50 === 0) largest = Math.max(largest, v8.getHeapStatistics().total_heap_size);
  }
  console.log(largest);
`;

/** The largest heap of the workload, run in a fresh Node with these flags, after importing heap-growth.ts or not. */
async function largestHeap(options: { imported: boolean; flags?: string[] }): Promise<number> {
  const script = workload.replace("IMPORT", options.imported ? `await import(${JSON.stringify(heapGrowth)});` : "");
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...(options.flags ?? []),
    "--import",
    "tsx",
    "--input-type=module",
    "-e",
    script,
  ]);
  return Number(stdout.trim());
}

describe("the server's heap growth", () => {
  it("keeps the heap closer to what survives than V8's default does, unless the operator set the growth", async () => {
    const [byDefault, ours, operators] = await Promise.all([
      largestHeap({ imported: false }),
      largestHeap({ imported: true }),
      largestHeap({ imported: true, flags: ["--heap-growing-percent=300"] }),
    ]);
    expect(ours).toBeLessThan(byDefault * 0.85);
    expect(operators).toBeGreaterThan(ours * 1.15);
  }, 60_000);
});
