import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { type OperationDoc, type ResponseDoc, TAGS } from "./operation.ts";
import { OPERATIONS } from "./operations.ts";
import { COMPONENTS } from "./response-schemas.ts";

/** An endpoint as the route table registered it, with what its guards ask of the caller. */
export interface RouteEntry {
  /** `GET /admin/users/:user_id` */
  readonly endpoint: string;
  readonly access: "anyone" | "user" | "admin";
  /** Behind the captcha check (SECURITY_CAPTCHA_ENABLED). */
  readonly captcha: boolean;
}

type JsonObject = Record<string, unknown>;

/** `/admin/users/:user_id` as OpenAPI writes it: `/admin/users/{user_id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

/** The key of an endpoint in OPERATIONS. */
export function operationKey(endpoint: string): string {
  const [method, path] = endpoint.split(" ") as [string, string];
  return `${method} ${openApiPath(path)}`;
}

const refTo = (name: string) => `#/components/schemas/${name}`;
const conversion: ConversionConfig = {
  target: "draft-2020-12",
  definitions: COMPONENTS,
  overrideRef: ({ referenceId }) => refTo(referenceId),
  // The request schemas' checks and transforms (storable text, null read as absent) have no JSON Schema
  // equivalent: what they accept is described, what they refuse is left to the error they answer.
  errorMode: "ignore",
};

/** A schema in place: the named ones are referred to among the components, not repeated in it. */
function converted(schema: v.GenericSchema, typeMode: "input" | "output"): JsonObject {
  const { $schema: _dialect, $defs: _named, ...rest } = toJsonSchema(schema, { ...conversion, typeMode }) as JsonObject;
  return rest;
}

const responseSchema = (schema: v.GenericSchema) => converted(schema, "output");

/**
 * A request body's schema: what the client may send. Objects stay open, as the handlers ignore keys they do not
 * know (auth-js sends a few); JSON null is accepted wherever a value is optional, as GoTrue reads it.
 */
const requestSchema = (schema: v.GenericSchema) => converted(schema, "input");

const PATH_PARAMETER_FORMATS: Readonly<Record<string, string>> = {
  user_id: "uuid",
  factor_id: "uuid",
  identity_id: "uuid",
  passkey_id: "uuid",
};

function parameters(path: string, doc: OperationDoc): JsonObject[] {
  const inPath = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: {
      type: "string",
      ...(PATH_PARAMETER_FORMATS[name as string] ? { format: PATH_PARAMETER_FORMATS[name as string] } : {}),
    },
  }));
  const inQuery = Object.entries(doc.query ?? {}).map(([name, description]) => ({
    name,
    in: "query",
    description,
    schema: { type: "string" },
  }));
  return [...inPath, ...inQuery];
}

function response(doc: ResponseDoc): JsonObject {
  if (doc.redirect) {
    return {
      description: doc.description,
      headers: { Location: { description: "Where the browser goes next", schema: { type: "string" } } },
    };
  }
  if (doc.json)
    return { description: doc.description, content: { "application/json": { schema: responseSchema(doc.json) } } };
  if (doc.media) return { description: doc.description, content: { [doc.media]: { schema: { type: "string" } } } };
  return { description: doc.description };
}

/** `GET /admin/users/{user_id}` as `getAdminUsersUserId`. */
function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join("");
}

const SECURITY: Readonly<Record<RouteEntry["access"], JsonObject[] | undefined>> = {
  anyone: undefined,
  user: [{ userToken: [] }],
  admin: [{ adminToken: [] }],
};

function operation(route: RouteEntry, path: string, doc: OperationDoc): JsonObject {
  const notes = [
    doc.description,
    doc.ours ? "Latchkey's own: Supabase Auth has no such endpoint." : undefined,
    doc.feature ? `Answers only while ${doc.feature} is on; otherwise as that feature switched off.` : undefined,
    route.captcha
      ? "With SECURITY_CAPTCHA_ENABLED, a captcha token in `gotrue_meta_security.captcha_token` (admin tokens need none)."
      : undefined,
  ].filter((note) => note !== undefined);
  const params = parameters(path, doc);
  const security = SECURITY[route.access];
  const requestBody = doc.body
    ? { content: { "application/json": { schema: requestSchema(doc.body) } } }
    : doc.form
      ? { content: { "application/x-www-form-urlencoded": { schema: requestSchema(doc.form) } } }
      : undefined;
  const responses = Object.fromEntries(
    Object.entries(doc.responses).map(([status, answer]) => [status, response(answer)]),
  );
  return {
    tags: [TAGS[doc.tag]],
    summary: doc.summary,
    ...(notes.length > 0 ? { description: notes.join("\n\n") } : {}),
    operationId: operationId(route.endpoint.split(" ")[0] ?? "", path),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(security ? { security } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...responses,
      default: {
        description: "An error, in Supabase's shape",
        content: { "application/json": { schema: { $ref: refTo("ErrorBody") } } },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 description of the API: every endpoint of the route table, described by OPERATIONS and by the
 * valibot schemas its handlers validate with. Served at /openapi.json, kept in docs/openapi.json.
 */
export function openApiDocument(routes: readonly RouteEntry[], info: { version: string }): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const key = operationKey(route.endpoint);
    const doc = OPERATIONS[key];
    if (!doc) throw new Error(`${route.endpoint} has no description in openapi/operations.ts`);
    const [method, path] = key.split(" ") as [string, string];
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = operation(route, path, doc);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Latchkey",
      version: info.version,
      description:
        "Supabase Auth's (GoTrue's) HTTP API, as Latchkey serves it. Errors answer in Supabase's shape: " +
        "`{ code, error_code, msg }`, or `{ code, message }` with `X-Supabase-Api-Version: 2024-01-01` or later.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [
      { url: "/", description: "At the root, where @supabase/auth-js is pointed" },
      { url: "/auth/v1", description: "As a Supabase project serves it, where supabase-js's createClient calls" },
    ],
    tags: Object.values(TAGS).map((name) => ({ name })),
    paths,
    components: {
      schemas: toJsonSchemaDefs(COMPONENTS, { ...conversion, typeMode: "output" }),
      securitySchemes: {
        userToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A user's access token." },
        adminToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A JWT whose role is one of JWT_ADMIN_ROLES, such as the service-role key.",
        },
      },
    },
  };
}
