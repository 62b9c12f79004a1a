import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

const v2024 = { "x-supabase-api-version": "2024-01-01" };

describe("error responses", () => {
  it("use the legacy body by default, with the code in a header", async () => {
    const { send } = createTestApp();
    const response = await send("POST", "/token?grant_type=password", {
      email: "nobody@example.com",
      password: "whatever",
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-sb-error-code")).toBe("invalid_credentials");
    expect(response.headers.get("x-supabase-api-version")).toBeNull();
    expect(await json(response)).toEqual({
      code: 400,
      error_code: "invalid_credentials",
      msg: "Invalid login credentials",
    });
  });

  it("use the 2024-01-01 body when asked, and echo the version so auth-js can decode it", async () => {
    const { send } = createTestApp();
    const response = await send(
      "POST",
      "/token?grant_type=password",
      { email: "nobody@example.com", password: "x" },
      v2024,
    );
    expect(response.headers.get("x-supabase-api-version")).toBe("2024-01-01");
    expect(await json(response)).toEqual({ code: "invalid_credentials", message: "Invalid login credentials" });
  });

  it.each(["2023-12-31", "yesterday", "2024-13-45"])("fall back to the legacy body for version %j", async (version) => {
    const { send } = createTestApp();
    const response = await send(
      "POST",
      "/token?grant_type=password",
      { email: "a@b.co", password: "x" },
      { "x-supabase-api-version": version },
    );
    expect((await json(response)).error_code).toBe("invalid_credentials");
  });

  it("carry the reasons of a weak password in both shapes", async () => {
    const { send } = createTestApp();
    const legacy = await send("POST", "/signup", { email: "weak@example.com", password: "123" });
    expect(legacy.status).toBe(422);
    expect(await json(legacy)).toEqual({
      code: 422,
      error_code: "weak_password",
      msg: "Password should be at least 6 characters.",
      weak_password: { reasons: ["length"] },
    });
    expect(legacy.headers.get("x-sb-error-code")).toBe("weak_password");
    const modern = await send("POST", "/signup", { email: "weak@example.com", password: "123" }, v2024);
    expect(modern.headers.get("x-sb-error-code")).toBeNull();
    expect(await json(modern)).toEqual({
      code: "weak_password",
      message: "Password should be at least 6 characters.",
      weak_password: { reasons: ["length"] },
    });
  });

  it("answer an unexpected failure with 500, a generic message and the request id, and log the cause", async () => {
    const { send, log, ports } = createTestApp({ requestIdHeader: "x-request-id" });
    const failing = {
      ...ports.stores.users,
      findByEmail: async () => Promise.reject(new Error("connection reset: secret detail")),
    };
    Object.assign(ports.stores, { users: failing });
    const response = await send(
      "POST",
      "/token?grant_type=password",
      { email: "a@b.co", password: "pw-pw-pw" },
      { "x-request-id": "req-123" },
    );
    expect(response.status).toBe(500);
    const body = await json(response);
    expect(body).toEqual({
      code: 500,
      error_code: "unexpected_failure",
      msg: "Unexpected failure, please check server logs for more information",
      error_id: "req-123",
    });
    expect(JSON.stringify(body)).not.toContain("secret detail");
    const logged = log.lines.find((line) => line.level === "error");
    expect(logged?.fields["request_id"]).toBe("req-123");
    expect(String(logged?.fields["err"])).toContain("connection reset");
  });

  it("answer an unknown path with a JSON 404", async () => {
    const { send } = createTestApp();
    const response = await send("GET", "/nowhere");
    expect(response.status).toBe(404);
    expect((await json(response)).error_code).toBe("not_found");
  });
});

describe("bad input", () => {
  it.each([
    ["truncated JSON", '{"email":'],
    ["an empty body", ""],
    ["an array", "[1,2]"],
    ["a bare string", '"a@b.co"'],
    ["null", "null"],
  ])("answers %s with bad_json and writes nothing", async (_label, body) => {
    const { send, stores } = createTestApp();
    const response = await send("POST", "/signup", body);
    expect(response.status).toBe(400);
    expect((await json(response)).error_code).toBe("bad_json");
    expect(await stores.users.findByEmail("a@b.co")).toBeNull();
  });

  it("answers invalid UTF-8 inside a JSON string with bad_json", async () => {
    const { app } = createTestApp();
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"email":"a'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('@b.co","password":"secret-pw"}'),
    ]);
    const response = await app.request("/signup", { method: "POST", body: bytes });
    expect(response.status).toBe(400);
    expect((await json(response)).error_code).toBe("bad_json");
  });

  it.each([
    ["email as a number", { email: 42, password: "secret-pw" }],
    ["email as an array", { email: ["a@b.co"], password: "secret-pw" }],
    ["password as an object", { email: "a@b.co", password: { p: 1 } }],
    ["data as a string", { email: "a@b.co", password: "secret-pw", data: "x" }],
  ])("answers %s with validation_failed naming the field", async (_label, body) => {
    const { send } = createTestApp();
    const response = await send("POST", "/signup", body);
    expect(response.status).toBe(400);
    const error = await json(response);
    expect(error.error_code).toBe("validation_failed");
    expect(error.msg).toMatch(/^(email|password|data): /);
  });

  it("refuses data nested too deeply", async () => {
    const { send } = createTestApp();
    const data = `${'{"d":'.repeat(10_000)}{}${"}".repeat(10_000)}`;
    const response = await send(
      "POST",
      "/signup",
      `{"email":"deep@example.com","password":"secret-pw","data":${data}}`,
    );
    expect(response.status).toBe(400);
    expect((await json(response)).error_code).toBe("validation_failed");
  });

  it("refuses a body over 1 MiB with 413, whatever its content type", async () => {
    const { send } = createTestApp();
    const response = await send(
      "POST",
      "/signup",
      JSON.stringify({ email: "big@example.com", password: "x".repeat(1024 * 1024) }),
      {
        "content-type": "text/plain",
      },
    );
    expect(response.status).toBe(413);
    expect((await json(response)).error_code).toBe("request_entity_too_large");
  });

  it("refuses a declared length over 1 MiB before reading anything, on a route that reads no body too", async () => {
    const { send } = createTestApp();
    for (const path of ["/signup", "/logout"]) {
      const response = await send("POST", path, "{}", { "content-length": String(1024 * 1024 + 1) });
      expect([path, response.status]).toEqual([path, 413]);
      expect((await json(response)).error_code).toBe("request_entity_too_large");
    }
  });

  it("reads the body as JSON whatever the content type says", async () => {
    const { send } = createTestApp();
    const response = await send(
      "POST",
      "/signup",
      { email: "plain@example.com", password: "secret-pw" },
      { "content-type": "text/plain" },
    );
    expect(response.status).toBe(200);
  });
});

describe("CORS", () => {
  it("lets a browser app call the server directly with the official client's headers", async () => {
    const { app } = createTestApp();
    const response = await app.request("/token?grant_type=password", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "apikey, authorization, content-type, x-client-info, x-supabase-api-version",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    const allowed = (response.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const header of ["apikey", "authorization", "content-type", "x-client-info", "x-supabase-api-version"]) {
      expect(allowed).toContain(header);
    }
  });

  it("exposes the API version header on responses", async () => {
    const { send } = createTestApp();
    const response = await send("GET", "/settings", undefined, { origin: "https://app.example.com" });
    expect(response.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-supabase-api-version");
  });

  it("grants the calling origin on answers and on errors alike, and grants nothing to a caller without one", async () => {
    const { send } = createTestApp();
    const origin = "https://app.example.com";
    const refused = await send("GET", "/user", undefined, { origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(origin);
    expect(refused.headers.get("access-control-allow-credentials")).toBeNull();
    expect(refused.headers.get("vary")).toContain("Origin");

    const server = await send("GET", "/settings");
    expect(server.headers.get("access-control-allow-origin")).toBeNull();
    // Caches must still keep the answers to different origins apart.
    expect(server.headers.get("vary")).toContain("Origin");
  });
});

describe("logging", () => {
  it("writes one line per request with its id, route and caller, and never the query string or the body", async () => {
    const { send, log } = createTestApp({ requestIdHeader: "x-request-id" });
    await send(
      "POST",
      "/auth/v1/token?grant_type=password&secret=q",
      { email: "a@b.co", password: "hunter2-hunter2" },
      { "x-request-id": "abc", "user-agent": "test-agent/1.0" },
    );
    const line = log.lines.find((entry) => entry.message === "request");
    expect(line?.fields).toMatchObject({
      request_id: "abc",
      method: "POST",
      path: "/auth/v1/token",
      route: "/token",
      status: 400,
      error_code: "invalid_credentials",
      client_address: "198.51.100.4",
      user_agent: "test-agent/1.0",
    });
    expect(JSON.stringify(log.lines)).not.toMatch(/hunter2|secret=q|a@b\.co/);
  });

  it("makes up a request id when none is inherited", async () => {
    const { send, log } = createTestApp();
    await send("GET", "/health");
    expect(log.lines[0]?.fields["request_id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
