import { cpSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { inject } from "vitest";
import { EMBEDDED_TEMPLATE_KEY, type EmbeddedTemplate } from "./provided-context.ts";

// A PGlite starts by running initdb: about 2.5 s of CPU in memory, 4 s in a folder, on these machines. One started
// from the files of a cluster initdb already made opens in about 0.5 s. The global setup makes those files once per
// run, as a folder and as the tar PGlite loads into memory.

/** Makes a fresh, empty cluster under `dir`, for embedded test databases to start from. */
export async function writeEmbeddedTemplate(dir: string): Promise<EmbeddedTemplate> {
  const template = { dataDir: join(dir, "pgdata"), tar: join(dir, "pgdata.tar") };
  const pristine = await PGlite.create(template.dataDir);
  try {
    const files = await pristine.dumpDataDir("none");
    await writeFile(template.tar, Buffer.from(await files.arrayBuffer()));
  } finally {
    await pristine.close();
  }
  return template;
}

/** A fresh in-memory PGlite of the caller's own (who closes it), from the run's template when there is one. */
export async function openEmbeddedTestDatabase(): Promise<PGlite> {
  const template = providedTemplate();
  if (template === undefined) return PGlite.create();
  return PGlite.create({ loadDataDir: new Blob([await readFile(template.tar)]) });
}

/**
 * Puts a fresh, empty cluster in `dataDir` (which must not exist), as the embedded database's first start would,
 * from the run's template; without one, leaves it to that start.
 */
export function prefillDataDir(dataDir: string): void {
  const template = providedTemplate();
  if (template !== undefined) cpSync(template.dataDir, dataDir, { recursive: true, errorOnExist: true });
}

let shared: Promise<PGlite> | undefined;

/**
 * This test process's in-memory PGlite, open until the process ends: what test servers and test databases share
 * when there is no PostgreSQL server, each under a namespace of its own, as they share the server's database.
 */
export function sharedEmbeddedTestDatabase(): Promise<PGlite> {
  shared ??= openEmbeddedTestDatabase();
  return shared;
}

function providedTemplate(): EmbeddedTemplate | undefined {
  try {
    return inject(EMBEDDED_TEMPLATE_KEY);
  } catch {
    // Outside a vitest worker there is nothing to inject.
    return undefined;
  }
}
