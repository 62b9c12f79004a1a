import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { linkRequest } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { RecoverBody } from "../request/schemas.ts";

/** POST /recover: a mail that signs the person in to set a new password; the same answer for any address. */
export const recover = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, RecoverBody);
  await c.var.auth.recoverPassword({ email: body.email ?? "", ...linkRequest(c, body), context: c.get("caller") });
  return c.json({});
};
