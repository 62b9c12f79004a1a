import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aUser } from "@latchkey/domain/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgres, migrations } from "../src/index.ts";
import { prefillDataDir } from "../src/testing/index.ts";

describe("PGlite in a data directory", () => {
  let dir: string;
  let dataDir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "latchkey-pglite-"));
    // A cluster as after a first start: initdb is PGlite's business, not this test's.
    dataDir = join(dir, "pgdata");
    prefillDataDir(dataDir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("keeps its schema and rows across close and reopen", async () => {
    const options = { embeddedDataDir: dataDir, namespace: "lk_", maxPoolSize: 0 };
    const user = aUser({ userMetadata: { kept: ["across", "restarts"] } });

    const first = await createPostgres(options);
    expect(await first.migrate()).toEqual(migrations.map((migration) => migration.version));
    await first.stores.users.insert(user);
    await first.close();

    const second = await createPostgres(options);
    try {
      expect(await second.migrate()).toEqual([]);
      expect(await second.stores.users.findById(user.id)).toEqual(user);
    } finally {
      await second.close();
    }
  });
});
