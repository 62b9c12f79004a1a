import { AuthError } from "@latchkey/domain";
import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../app-env.ts";
import { bodyTooLarge, ClientClosedRequest } from "./request-body.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const noBody = async () => new Uint8Array(0);

/**
 * Reads the body as JSON whatever its Content-Type says (as GoTrue does, so there is one parser and one
 * validator), then validates it. Unreadable bodies are `bad_json`, including an empty one; a body of the wrong
 * shape is `validation_failed` naming the first offending field.
 */
export async function readJson<S extends v.GenericSchema>(
  c: Context<AppEnv>,
  schema: S,
  options: { optional?: boolean } = {},
): Promise<v.InferOutput<S>> {
  let data: unknown;
  try {
    const bytes = await (c.get("body") ?? noBody)();
    if (bytes === null) throw bodyTooLarge();
    const text = utf8.decode(bytes);
    // Where the body is optional (DELETE /admin/users/<id>), none at all reads as an empty object.
    data = options.optional && text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    if (error instanceof AuthError || error instanceof ClientClosedRequest) throw error;
    const reason = error instanceof TypeError ? "invalid UTF-8" : error instanceof Error ? error.message : "unreadable";
    throw new AuthError("bad_json", `Could not parse request body as JSON: ${reason}`);
  }
  // Go cannot decode an array or a scalar into a request struct: GoTrue answers bad_json, and so do we.
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new AuthError("bad_json", "Could not parse request body as JSON: expected an object");
  }
  return validate(schema, data);
}

function validate<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, data);
  if (result.success) return result.output;
  const [issue] = result.issues;
  const path = issue.path?.map((item) => String(item.key)).join(".");
  throw new AuthError("validation_failed", path ? `${path}: ${issue.message}` : issue.message);
}

/** Reads the body as a form (`application/x-www-form-urlencoded`), as Apple's form_post callback sends it. */
export async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  const bytes = await (c.get("body") ?? noBody)();
  if (bytes === null) throw bodyTooLarge();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AuthError("validation_failed", "Could not parse request body as a form: invalid UTF-8");
  }
  return Object.fromEntries(new URLSearchParams(text));
}
