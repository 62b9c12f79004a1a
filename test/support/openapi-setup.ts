import { takeResponseMismatches } from "@latchkey/server/testing";
import { afterEach, beforeAll, expect } from "vitest";

// The end-to-end tests hold every answer of their servers to the OpenAPI description (GET /openapi.json): a test
// whose requests got an answer the description does not allow fails, naming it (the first test of a file answers for
// its file's setup too). What a worker's earlier files of other projects left, whose test servers are checked but
// not held to it, is set aside as a file starts.
beforeAll(async () => {
  await takeResponseMismatches();
});
afterEach(async () => {
  expect(await takeResponseMismatches(), "answers that do not match the OpenAPI description").toEqual([]);
});
