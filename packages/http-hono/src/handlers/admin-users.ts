import { presentUser } from "@latchkey/domain";
import type { Context, Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { setPaginationHeaders } from "../present/pagination.ts";
import { pathId, queryText, requestAudience } from "../request/envelope.ts";
import { pagination, sortOrder } from "../request/listing.ts";
import { readJson } from "../request/read-json.ts";
import { AdminDeleteUserBody, AdminUserBody } from "../request/schemas.ts";
import type { HandlerDeps } from "./deps.ts";

// /admin/users: each runs behind requireAdmin, which sets the admin principal.

/** GET /admin/users: a page of users, newest first unless `sort` says otherwise, filtered by address or text. */
export const listUsers =
  ({ auth }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const listed = await c.var.auth.admin.listUsers({
      ...pagination(c),
      order: sortOrder(c),
      filter: queryText(c, "filter"),
      email: queryText(c, "email"),
      phone: queryText(c, "phone"),
      audience: requestAudience(c),
    });
    setPaginationHeaders(c, listed);
    return c.json({ users: listed.users.map(presentUser), aud: requestAudience(c) ?? auth.policy.defaultAudience });
  };

/** POST /admin/users, and POST /admin/users/<id> to choose the id. */
export const createUser = (): Handler<AppEnv> => async (c: Context<AppEnv>) => {
  const chosenId = c.req.param("user_id") === undefined ? undefined : pathId(c, "user_id");
  const body = await readJson(c, AdminUserBody);
  const user = await c.var.auth.admin.createUser({
    admin: c.get("admin"),
    id: chosenId ?? body.id,
    aud: body.aud,
    role: body.role,
    email: body.email,
    phone: body.phone,
    password: body.password,
    passwordHash: body.password_hash,
    emailConfirm: body.email_confirm,
    phoneConfirm: body.phone_confirm,
    userMetadata: body.user_metadata,
    appMetadata: body.app_metadata,
    banDuration: body.ban_duration,
    audience: requestAudience(c),
    context: c.get("caller"),
  });
  return c.json(presentUser(user));
};

/** GET /admin/users/<id>. */
export const getUser = (): Handler<AppEnv> => async (c) =>
  c.json(presentUser(await c.var.auth.admin.getUser({ userId: pathId(c, "user_id") })));

/** PUT /admin/users/<id>: any field, addresses confirmed or not, bans. */
export const updateUser = (): Handler<AppEnv> => async (c) => {
  const userId = pathId(c, "user_id");
  const body = await readJson(c, AdminUserBody);
  const user = await c.var.auth.admin.updateUser({
    admin: c.get("admin"),
    userId,
    role: body.role,
    email: body.email,
    phone: body.phone,
    password: body.password,
    emailConfirm: body.email_confirm,
    phoneConfirm: body.phone_confirm,
    userMetadata: body.user_metadata,
    appMetadata: body.app_metadata,
    banDuration: body.ban_duration,
    context: c.get("caller"),
  });
  return c.json(presentUser(user));
};

/** DELETE /admin/users/<id>: hard unless the optional body asks for a soft delete. */
export const deleteUser = (): Handler<AppEnv> => async (c) => {
  const userId = pathId(c, "user_id");
  const body = await readJson(c, AdminDeleteUserBody, { optional: true });
  await c.var.auth.admin.deleteUser({
    admin: c.get("admin"),
    userId,
    softDelete: body.should_soft_delete,
    context: c.get("caller"),
  });
  return c.json({});
};
