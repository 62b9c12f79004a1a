import { describeStoreContract } from "@latchkey/domain/testing";
import { createPostgres } from "../src/index.ts";
import { randomNamespace, readOutboxEntry } from "../src/testing/index.ts";

describeStoreContract("pglite", async () => {
  const postgres = await createPostgres({ namespace: randomNamespace(), maxPoolSize: 0 });
  await postgres.migrate();
  return { ...postgres, readOutbox: (id) => readOutboxEntry(postgres, id) };
});
