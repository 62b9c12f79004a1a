import { describe, expect, it } from "vitest";
import { createFunctionHook, parseFunctionHookUri } from "../src/index.ts";

// Which functions a pg-functions:// URI may name: GoTrue's rule (schema and function each match
// ^[a-zA-Z_][a-zA-Z0-9_]{0,62}$), so that nothing but a name ever reaches the SQL.

const NAME_63 = `a${"b".repeat(62)}`;

describe("pg-functions:// hook URIs", () => {
  it.each([
    ["pg-functions://postgres/public/custom_access_token", { schema: "public", name: "custom_access_token" }],
    ["pg-functions://postgres/auth_hooks/_Hook2", { schema: "auth_hooks", name: "_Hook2" }],
    [`pg-functions://postgres/${NAME_63}/${NAME_63}`, { schema: NAME_63, name: NAME_63 }],
    // The scheme is read without regard to case, as GoTrue (Go's url.Parse) reads it.
    ["PG-FUNCTIONS://postgres/public/hook", { schema: "public", name: "hook" }],
  ])("names the function of %s", (uri, expected) => {
    expect(parseFunctionHookUri(uri)).toEqual(expected);
  });

  it.each([
    ["not-a-uri", "is not a URI"],
    ["/public/hook", "is not a URI"],
    ["", "is not a URI"],
    ["https://hooks.example.com/public/hook", "is not a pg-functions:// URI"],
    ["postgres://postgres/public/hook", "is not a pg-functions:// URI"],
    ["pg-function://postgres/public/hook", "is not a pg-functions:// URI"],
  ])("refuses %j, which is no pg-functions:// URI", (uri, problem) => {
    expect(parseFunctionHookUri(uri)).toEqual({ problem });
  });

  it.each([
    "pg-functions://postgres",
    "pg-functions://postgres/",
    "pg-functions://postgres/public",
    "pg-functions://postgres/public/",
  ])("refuses %s, which names no function", (uri) => {
    expect(parseFunctionHookUri(uri)).toEqual({ problem: "must be pg-functions://postgres/<schema>/<function>" });
  });

  it.each([
    ["pg-functions://postgres//hook", /invalid schema name/],
    ["pg-functions://postgres/1public/hook", /invalid schema name/],
    ["pg-functions://postgres/my-schema/hook", /invalid schema name/],
    ["pg-functions://postgres/public.auth/hook", /invalid schema name/],
    [`pg-functions://postgres/${NAME_63}x/hook`, /invalid schema name/],
    ["pg-functions://postgres/public/9hook", /invalid function name/],
    ["pg-functions://postgres/public/hook-name", /invalid function name/],
    ["pg-functions://postgres/public/hook.name", /invalid function name/],
    ["pg-functions://postgres/public/żółw", /invalid function name/],
    [`pg-functions://postgres/public/${NAME_63}x`, /invalid function name/],
  ])("refuses %s, whose names are not PostgreSQL's plain names", (uri, problem) => {
    const parsed = parseFunctionHookUri(uri);
    expect(parsed).toHaveProperty("problem");
    expect((parsed as { problem: string }).problem).toMatch(problem);
  });

  it.each([
    'pg-functions://postgres/public/x";drop',
    'pg-functions://postgres/public/x";drop table users;--',
    "pg-functions://postgres/public/x'); drop table users; --",
    "pg-functions://postgres/public/x(payload);select pg_sleep(10)",
    'pg-functions://postgres/"public"/hook',
    'pg-functions://postgres/public/"Hook"',
    "pg-functions://postgres/public/hook%22%3Bdrop",
    "pg-functions://postgres/pub lic/hook",
    "pg-functions://postgres/public/ho\u0000ok",
    "pg-functions://postgres/public/hook--",
  ])("refuses %j, which would carry more than a name into the SQL", (uri) => {
    expect(parseFunctionHookUri(uri)).toHaveProperty("problem");
    expect(() => createFunctionHook({ uri })).toThrow(/^hook URI .* (is|has|must)/);
  });

  it.each([
    "pg-functions://postgres/public/ho\tok",
    "pg-functions://postgres/public/ho\nok",
    "pg-functions://postgres/public/hook\n",
    " pg-functions://postgres/public/hook",
    "pg-functions://postgres/public/hook ",
    "pg-functions://postgres/public/hook\u0000",
    "pg-functions://postgres/public/hook\u007f",
  ])("refuses %j, whose whitespace or control characters the URL parser would drop in silence", (uri) => {
    // GoTrue refuses them too: Go's url.Parse refuses control characters, and a space is no part of a name.
    expect(parseFunctionHookUri(uri)).toEqual({ problem: "has whitespace or control characters" });
  });

  it("refuses, when the hook is made, a URI that names no function, saying why", () => {
    expect(() => createFunctionHook({ uri: "https://hooks.example.com/public/hook" })).toThrow(
      "hook URI https://hooks.example.com/public/hook is not a pg-functions:// URI",
    );
    expect(createFunctionHook({ uri: "pg-functions://postgres/public/hook" }).uri).toBe(
      "pg-functions://postgres/public/hook",
    );
  });
});
