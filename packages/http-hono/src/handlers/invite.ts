import { presentUser } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { redirectCandidates, requestAudience } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { InviteBody } from "../request/schemas.ts";

/** POST /invite: an account for an address, and a mail inviting its owner in. Behind requireAdmin. */
export const invite = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, InviteBody);
  const user = await c.var.auth.inviteUser({
    admin: c.get("admin"),
    email: body.email ?? "",
    data: body.data,
    audience: requestAudience(c),
    redirectTo: redirectCandidates(c),
    context: c.get("caller"),
  });
  return c.json(presentUser(user));
};
