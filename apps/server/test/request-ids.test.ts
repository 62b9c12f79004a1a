import { testDatabaseUrl } from "@latchkey/adapters-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/start-test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ AUTH_REQUEST_ID_HEADER: "X-Request-Id" });
});
afterAll(() => server.close());

describe("request ids", () => {
  it("are inherited from REQUEST_ID_HEADER and stamped on every line the request writes", async () => {
    const response = await server.fetch("/signup", {
      method: "POST",
      headers: { "x-request-id": "req-signup-1" },
      json: { email: "ids@example.com", password: "secret-password" },
    });
    expect(response.status).toBe(200);
    const lines = server.logLines().filter((line) => line["request_id"] === "req-signup-1");
    expect(lines.map((line) => line["msg"])).toEqual(["request"]);
  });

  // Without a test database the server runs the development profile, where links are shown on purpose.
  it.skipIf(!testDatabaseUrl())("outside the development profile, record a delivered mail without its link or code", async () => {
    await server.fetch("/signup", { method: "POST", json: { email: "nolink@example.com", password: "secret-password" } });
    await expect
      .poll(() => server.logLines().find((line) => (line["mail"] as { to?: string } | undefined)?.to === "nolink@example.com"))
      .toBeDefined();
    const mailLine = server.logLines().find((line) => (line["mail"] as { to?: string } | undefined)?.to === "nolink@example.com");
    expect(mailLine?.["mail"]).toEqual({ kind: "confirmation", to: "nolink@example.com" });
  });
});
