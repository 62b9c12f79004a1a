import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import type { HandlerDeps } from "../src/handlers/deps.ts";
import { describeApi } from "../src/index.ts";
import { operationKey } from "../src/openapi/document.ts";
import { OPERATIONS } from "../src/openapi/operations.ts";
import { apiRoutes } from "../src/routes.ts";
import { createTestApp, json } from "./support.ts";

// The OpenAPI description is made from the route table (its endpoints and guards) and the valibot schemas the
// handlers validate with; the end-to-end tests hold every real answer to it (apps/server/test/support/response-check.ts).

type Json = Record<string, any>;
const document = describeApi("1.2.3") as Json;
const operation = (method: string, path: string): Json => document["paths"][path][method];

describe("the OpenAPI description", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(document["openapi"]).toBe("3.1.0");
    expect(document["info"]["version"]).toBe("1.2.3");
  });

  it("describes every endpoint of the route table, and nothing that is not routed", () => {
    const routed = apiRoutes({ version: "1" } as HandlerDeps).table.map((route) => operationKey(route.endpoint));
    expect(new Set(routed).size).toBe(routed.length);
    expect([...routed].sort()).toEqual(Object.keys(OPERATIONS).sort());
    const described = Object.entries(document["paths"] as Json).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual([...routed].sort());
  });

  it("asks for the token each route's guard asks for", () => {
    for (const [path, methods] of Object.entries(document["paths"] as Json)) {
      if (!path.startsWith("/admin/")) continue;
      for (const [method, op] of Object.entries(methods as Json)) {
        expect(op["security"], `${method} ${path}`).toEqual([{ adminToken: [] }]);
      }
    }
    expect(operation("post", "/invite")["security"]).toEqual([{ adminToken: [] }]);
    expect(operation("get", "/user")["security"]).toEqual([{ userToken: [] }]);
    expect(operation("post", "/factors/{factor_id}/verify")["security"]).toEqual([{ userToken: [] }]);
    expect(operation("post", "/signup")["security"]).toBeUndefined();
    expect(operation("get", "/settings")["security"]).toBeUndefined();
  });

  it("says which endpoints check a captcha, as their guard does", () => {
    const captcha = /SECURITY_CAPTCHA_ENABLED/;
    for (const [method, path] of [
      ["post", "/signup"],
      ["post", "/token"],
      ["post", "/otp"],
      ["post", "/recover"],
      ["post", "/sso"],
    ] as const) {
      expect(operation(method, path)["description"], `${method} ${path}`).toMatch(captcha);
    }
    expect(operation("post", "/verify")["description"] ?? "").not.toMatch(captcha);
  });

  it("describes request bodies with the schemas the handlers validate with, open to keys they ignore", () => {
    const schema = operation("post", "/admin/users")["requestBody"]["content"]["application/json"]["schema"];
    expect(Object.keys(schema["properties"])).toEqual(
      expect.arrayContaining(["email", "password", "password_hash", "user_metadata", "app_metadata", "ban_duration"]),
    );
    expect(schema["additionalProperties"]).toBeUndefined();
    // A text field: null is read as absent, and its length is capped.
    expect(schema["properties"]["email"]).toEqual({ anyOf: [{ type: "string", maxLength: 16384 }, { type: "null" }] });
    // POST /token: one body a grant type.
    expect(operation("post", "/token")["requestBody"]["content"]["application/json"]["schema"]["anyOf"]).toHaveLength(
      5,
    );
  });

  it("gives errors in Supabase's shapes, and closes the answers' objects so that no field goes undescribed", () => {
    const { schemas } = document["components"];
    expect(operation("get", "/user")["responses"]["default"]["content"]["application/json"]["schema"]).toEqual({
      $ref: "#/components/schemas/ErrorBody",
    });
    expect(schemas["LegacyError"]["required"]).toEqual(["code", "error_code", "msg"]);
    expect(schemas["Error2024"]["required"]).toEqual(["code", "message"]);
    expect(schemas["User"]["additionalProperties"]).toBe(false);
    expect(schemas["User"]["properties"]["identities"]).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/Identity" },
    });
  });

  it("names Latchkey's own endpoints and the features that switch endpoints on", () => {
    expect(operation("get", "/ready")["description"]).toMatch(/Latchkey's own/);
    expect(operation("get", "/admin/users/{user_id}/sessions")["description"]).toMatch(/Latchkey's own/);
    expect(operation("get", "/user")["description"]).toBeUndefined();
    expect(operation("post", "/sso")["description"]).toMatch(/SAML_ENABLED/);
  });

  it("is served at /openapi.json and under /auth/v1, with the server's version", async () => {
    const { send } = createTestApp();
    for (const path of ["/openapi.json", "/auth/v1/openapi.json"]) {
      const answer = await send("GET", path);
      expect(answer.status).toBe(200);
      const served = (await json(answer)) as Json;
      expect(served["paths"]).toEqual(document["paths"]);
      expect(typeof served["info"]["version"]).toBe("string");
    }
  });
});
