import { describeStoreContract } from "./contracts/store-contract.ts";
import { createInMemoryStores } from "./in-memory-stores.ts";

describeStoreContract("in-memory", async () => createInMemoryStores());
