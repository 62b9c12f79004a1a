// @latchkey/server/testing: what tests outside this package use to run the server, in process or as the binary.
// Never part of the production bundle, whose one entry is src/main.ts (build-server.ts checks it).

export { databaseUrl, freePort, run, tempDir, textOf, waitFor } from "./binary.ts";
export { takeResponseMismatches } from "./response-check.ts";
export { provideServerBundle, serverCommand } from "./server-entry.ts";
export { REQUIRED_SETTINGS, startTestServer, TEST_JWT_SECRET, type TestServer } from "./start-test-server.ts";
