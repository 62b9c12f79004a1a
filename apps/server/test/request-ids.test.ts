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

  it("do not hold up the mail a request calls for: it leaves after the response, through SMTP", async () => {
    await server.fetch("/signup", {
      method: "POST",
      headers: { "x-request-id": "req-signup-2" },
      json: { email: "later@example.com", password: "secret-password" },
    });
    const mail = await server.mail.waitFor("later@example.com");
    expect(mail.subject).toBe("Confirm your email address");
  });
});
