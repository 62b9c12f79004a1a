import { AuthError, type LogoutScope, presentUser } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { linkRequest } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { UpdateUserBody } from "../request/schemas.ts";

const scopes: ReadonlySet<string> = new Set<LogoutScope>(["global", "local", "others"]);

// The signed-in user's own resources: each runs behind requireUser, which sets the principal.

/** GET /user: the user the token stands for, as read when the token was checked. */
export const getUser = (): Handler<AppEnv> => (c) => c.json(presentUser(c.get("principal").user));

/** PUT /user: a new address (confirmed by mail or SMS), password or user_metadata. */
export const updateUser = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, UpdateUserBody);
  const user = await c.var.auth.updateUser({
    principal: c.get("principal"),
    email: body.email,
    phone: body.phone,
    password: body.password,
    data: body.data,
    nonce: body.nonce,
    currentPassword: body.current_password,
    channel: body.channel,
    ...linkRequest(c, body),
    context: c.get("caller"),
  });
  return c.json(presentUser(user));
};

/** GET /reauthenticate: a nonce by mail or SMS, which a password change may have to carry. */
export const reauthenticate = (): Handler<AppEnv> => async (c) => {
  const { messageId } = await c.var.auth.reauthenticate({ principal: c.get("principal"), context: c.get("caller") });
  return c.json(messageId === null ? {} : { message_id: messageId });
};

/** POST /logout?scope=global|local|others: ends sessions of the user. */
export const logout = (): Handler<AppEnv> => async (c) => {
  const scope = c.req.query("scope") || "global";
  if (!scopes.has(scope)) throw new AuthError("validation_failed", `Unsupported logout scope ${JSON.stringify(scope)}`);
  await c.var.auth.signOut({ principal: c.get("principal"), scope: scope as LogoutScope, context: c.get("caller") });
  return c.body(null, 204);
};
