import { describeStoreContract } from "@latchkey/domain/testing";
import { createPostgres } from "../src/index.ts";
import { openEmbeddedTestDatabase, randomNamespace, readOutboxEntry } from "../src/testing/index.ts";

describeStoreContract("pglite", async () => {
  const client = await openEmbeddedTestDatabase();
  const postgres = await createPostgres({ sharedEmbedded: client, namespace: randomNamespace(), maxPoolSize: 0 });
  await postgres.migrate();
  return { ...postgres, readOutbox: (id) => readOutboxEntry(postgres, id), close: () => client.close() };
});
