import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { handleAuthErrors } from "../errors/error-response.ts";
import { requireAdmin } from "../middleware/require-user.ts";
import { presentUser } from "../present/user.ts";
import { readJson } from "../read-json.ts";
import { redirectCandidates, requestAudience, requestContext } from "../request-context.ts";
import { InviteBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";

/** POST /invite, for service-role (or admin-role) tokens. */
export const inviteRoutes = ({ auth, clientAddress }: RouteDeps) =>
  new Hono<AppEnv>()
    // compat: an admin token naming a user that is gone is a 403 here, as GoTrue's auth middleware answers it.
    .onError(handleAuthErrors({ user_not_found: 403 }))
    .use("/invite", requireAdmin(auth))
    .post("/invite", async (c) => {
      const body = await readJson(c, InviteBody);
      const user = await auth.inviteUser({
        admin: c.get("admin"),
        email: body.email ?? "",
        data: body.data,
        audience: requestAudience(c),
        redirectTo: redirectCandidates(c),
        context: requestContext(c, clientAddress),
      });
      return c.json(presentUser(user));
    });
