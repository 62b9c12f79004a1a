import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentAdminSession } from "../present/admin-session.ts";
import { pathId } from "../request/envelope.ts";
import type { HandlerDeps } from "./deps.ts";

// Latchkey's own admin endpoints, for an admin console (GoTrue has none of them; docs/compatibility.md). Each runs
// behind requireAdmin, which sets the admin principal.

/** GET /admin/users/<id>/sessions: every session of the user, newest first. */
export const listSessions = (): Handler<AppEnv> => async (c) => {
  const sessions = await c.var.auth.admin.listSessions({ userId: pathId(c, "user_id") });
  return c.json({ sessions: sessions.map(presentAdminSession) });
};

/** DELETE /admin/users/<id>/sessions: signs the user out everywhere. */
export const signOutUser = (): Handler<AppEnv> => async (c) => {
  const userId = pathId(c, "user_id");
  await c.var.auth.admin.signOutUser({ admin: c.get("admin"), userId, context: c.get("caller") });
  return c.json({});
};

/** GET /admin/settings: the settings the server started with, secrets redacted (as `latchkey config` shows them). */
export const settings =
  ({ effectiveSettings }: HandlerDeps): Handler<AppEnv> =>
  (c) => {
    const { profile, settings } = effectiveSettings();
    return c.json({
      profile,
      settings: settings.map(({ name, value, source }) => ({ name, value, source })),
    });
  };
