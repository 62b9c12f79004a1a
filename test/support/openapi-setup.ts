import { takeResponseMismatches } from "@latchkey/server/testing";
import { afterEach, expect } from "vitest";

// The end-to-end tests hold every answer of their servers to the OpenAPI description (GET /openapi.json): a test
// whose requests got an answer the description does not allow fails, naming it.
afterEach(async () => {
  expect(await takeResponseMismatches(), "answers that do not match the OpenAPI description").toEqual([]);
});
