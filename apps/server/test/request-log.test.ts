import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/start-test-server.ts";

let server: TestServer;
beforeAll(async () => {
  // A trusted proxy names the client, as behind a load balancer: the log says who called as the limits count them.
  server = await startTestServer({ AUTH_REQUEST_ID_HEADER: "X-Request-Id", AUTH_RATE_LIMIT_HEADER: "X-Real-IP" });
});
afterAll(() => server.close());

/** The request line of the request sent with `x-request-id: id`. */
const requestLine = (id: string) => {
  const lines = server.logLines().filter((line) => line["request_id"] === id && line["msg"] === "request");
  expect(lines).toHaveLength(1);
  return lines[0]!;
};

describe("the request log", () => {
  it("says enough to diagnose a refused sign-in, and nothing of its query, body or credentials", async () => {
    const response = await server.fetch("/token?grant_type=password&redirect_to=https%3A%2F%2Fleak.example", {
      method: "POST",
      headers: {
        "x-request-id": "req-token-400",
        "x-real-ip": "203.0.113.7",
        "user-agent": "supabase-js/2.50.0 (diagnose me)",
        authorization: "Bearer secret-bearer-token",
        apikey: "secret-api-key",
      },
      json: { email: "leaky@example.com", phone: "+15550100999", password: 12345678 },
    });
    expect(response.status).toBe(400);
    const line = requestLine("req-token-400");
    expect(line).toMatchObject({
      level: 30,
      method: "POST",
      path: "/token",
      route: "/token",
      status: 400,
      error_code: "validation_failed",
      client_address: "203.0.113.7",
      user_agent: "supabase-js/2.50.0 (diagnose me)",
    });
    const written = JSON.stringify(line);
    for (const secret of [
      "grant_type",
      "leak.example",
      "leaky@example.com",
      "15550100999",
      "12345678",
      "secret-bearer-token",
      "secret-api-key",
    ]) {
      expect(written).not.toContain(secret);
    }
  });

  it("gives the error code of answers without the code header: 2024-shaped weak passwords, failed links", async () => {
    const weak = await server.fetch("/signup", {
      method: "POST",
      headers: { "x-request-id": "req-weak", "x-supabase-api-version": "2024-01-01" },
      json: { email: "weak@example.com", password: "abc" },
    });
    expect(weak.status).toBe(422);
    expect(weak.headers.get("x-sb-error-code")).toBeNull();
    expect(requestLine("req-weak")).toMatchObject({ status: 422, error_code: "weak_password" });

    const link = await server.fetch("/verify?type=signup&token=not-a-token&redirect_to=http%3A%2F%2Flocalhost%3A3000", {
      headers: { "x-request-id": "req-link" },
      redirect: "manual",
    });
    expect(link.status).toBe(303);
    expect(requestLine("req-link")).toMatchObject({ status: 303, error_code: "otp_expired" });
  });

  it("logs a client gone mid-body as 499, neither a 400 of its own nor a failure of ours", async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      "POST /token?grant_type=password HTTP/1.1\r\nHost: x\r\nX-Request-Id: req-gone\r\n" +
        'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":"gone@',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await expect.poll(() => server.logLines().some((line) => line["request_id"] === "req-gone")).toBe(true);
    const line = requestLine("req-gone");
    expect(line).toMatchObject({ level: 30, status: 499, route: "/token" });
    expect(line).not.toHaveProperty("error_code");
    expect(server.logLines().filter((each) => each["request_id"] === "req-gone")).toHaveLength(1);
  });

  it("names a route with an id by its pattern, under /auth/v1 as at the root", async () => {
    const id = crypto.randomUUID();
    await server.fetch(`/auth/v1/admin/users/${id}`, { headers: { "x-request-id": "req-admin-user" } });
    const line = requestLine("req-admin-user");
    expect(line).toMatchObject({ path: `/auth/v1/admin/users/${id}`, route: "/admin/users/{user_id}" });
    expect(line["route"]).not.toContain(id);
    // No proxy header: the socket's peer.
    expect(line["client_address"]).toBe("127.0.0.1");
  });

  it("gives a request no route took a null route, and cuts a long user agent", async () => {
    const response = await server.fetch("/nowhere?token=secret-in-query", {
      headers: { "x-request-id": "req-nowhere", "user-agent": `agent/${"x".repeat(1_000)}` },
    });
    expect(response.status).toBe(404);
    const line = requestLine("req-nowhere");
    expect(line).toMatchObject({ path: "/nowhere", route: null, status: 404, error_code: "not_found" });
    expect(line["user_agent"]).toBe(`agent/${"x".repeat(250)}`);
    expect(JSON.stringify(line)).not.toContain("secret-in-query");
  });
});
