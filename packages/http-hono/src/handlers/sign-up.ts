import { presentUser } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentSession } from "../present/session.ts";
import { linkRequest, requestAudience } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { SignupBody } from "../request/schemas.ts";

/** POST /signup: an account by email or phone and password, or an anonymous one; a session when it needs no proof. */
export const signUp = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, SignupBody);
  const result = await c.var.auth.signUp({
    email: body.email,
    phone: body.phone,
    password: body.password,
    data: body.data,
    channel: body.channel,
    audience: requestAudience(c),
    ...linkRequest(c, body),
    context: c.get("caller"),
  });
  return c.json(result.kind === "session" ? presentSession(result.grant) : presentUser(result.user));
};
