import { describeApi } from "@latchkey/http-hono";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

// Every answer a test server gives is held to the OpenAPI description (GET /openapi.json): the status must be one
// it documents for the operation (or an error, in the error shape), and the body must match its schema. What does
// not match is kept, and the end-to-end tests fail on it (test/support/openapi-setup.ts), so the description cannot
// drift from what the server really does.

type Json = Record<string, unknown>;
interface Operation {
  readonly pattern: RegExp;
  readonly method: string;
  readonly pointer: string;
  readonly responses: Json;
  /** Path parameters: a literal path wins over a template that also matches. */
  readonly parameters: number;
}

/** Where supabase-js's createClient calls the same API. */
const SUPABASE_AUTH_PATH = "/auth/v1";
const escapePointer = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1");

let checker: ReturnType<typeof createChecker> | undefined;
const mismatches: string[] = [];
const pending = new Set<Promise<void>>();

function createChecker() {
  const document = describeApi("test") as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema({ ...document, $id: "openapi" });
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document["paths"] as Record<string, Record<string, Json>>)) {
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
    for (const [method, operation] of Object.entries(methods)) {
      const pointer = `openapi#/paths/${escapePointer(path)}/${method}/responses`;
      const parameters = path.split("{").length - 1;
      operations.push({
        pattern,
        method: method.toUpperCase(),
        pointer,
        responses: operation["responses"] as Json,
        parameters,
      });
    }
  }
  operations.sort((a, b) => a.parameters - b.parameters);
  const validators = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    const known = validators.get(pointer);
    if (known) return known;
    const validate = ajv.compile({ $ref: pointer });
    validators.set(pointer, validate);
    return validate;
  };
  const errorShape = validator("openapi#/components/schemas/ErrorBody");
  return { operations, validator, errorShape };
}

/** Why the answer does not match the description, or null when it does. */
async function mismatchOf(method: string, url: string, response: Response): Promise<string | null> {
  checker ??= createChecker();
  let path = new URL(url).pathname;
  if (path.startsWith(`${SUPABASE_AUTH_PATH}/`)) path = path.slice(SUPABASE_AUTH_PATH.length);
  const operation = checker.operations.find((op) => op.method === method && op.pattern.test(path));
  const status = String(response.status);
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (!operation) {
    // No endpoint (an unknown path, a preflight, a switched-off feature's catch-all): an error must still be one.
    if (response.status < 400 || !type.includes("application/json")) return null;
    return checker.errorShape(JSON.parse(text)) ? null : `error body ${JSON.stringify(checker.errorShape.errors)}`;
  }
  const documented = status in operation.responses ? status : response.status >= 400 ? "default" : undefined;
  if (documented === undefined) return `status ${status} is not documented`;
  const answer = operation.responses[documented] as Json;
  const content = answer["content"] as Record<string, unknown> | undefined;
  if (answer["headers"] && !response.headers.has("location")) return "a redirect without Location";
  if (!content)
    return text === "" || response.status >= 300 ? null : `a body where none is documented: ${text.slice(0, 200)}`;
  const media = Object.keys(content)[0] ?? "";
  if (!type.startsWith(media)) return `content-type ${type}, documented ${media}`;
  if (media !== "application/json") return null;
  const pointer = `${operation.pointer}/${documented}/content/application~1json/schema`;
  const validate = checker.validator(pointer);
  const body: unknown = JSON.parse(text);
  if (validate(body)) return null;
  return `${JSON.stringify(validate.errors?.slice(0, 3))} in ${text.slice(0, 300)}`;
}

/** A server's fetch whose every answer is checked against the description, as it goes back to the client. */
export function checkedAgainstDescription<Env>(
  fetch: (request: Request, env: Env) => Response | Promise<Response>,
): (request: Request, env: Env) => Promise<Response> {
  return async (request, env) => {
    const response = await fetch(request, env);
    const { method, url } = request;
    if (method === "HEAD" || method === "OPTIONS") return response;
    const copy = response.clone();
    const check = mismatchOf(method, url, copy)
      .then((problem) => {
        if (problem) mismatches.push(`${method} ${new URL(url).pathname} → ${response.status}: ${problem}`);
      })
      .catch((error: unknown) => {
        mismatches.push(`${method} ${new URL(url).pathname} → ${response.status}: unreadable (${String(error)})`);
      })
      .finally(() => pending.delete(check));
    pending.add(check);
    return response;
  };
}

/** The mismatches found since the last call, once every answer given so far is checked. */
export async function takeResponseMismatches(): Promise<string[]> {
  // A body the client never read is never finished: it is not waited for long.
  let timer: NodeJS.Timeout | undefined;
  const patience = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, 2_000);
  });
  await Promise.race([Promise.all(pending), patience]);
  clearTimeout(timer);
  return mismatches.splice(0);
}
