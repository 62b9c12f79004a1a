import { AuthError, type ErrorCode } from "@latchkey/domain";
import type { Handler, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

// The endpoints of features Latchkey does not have yet (SCIM), answered as GoTrue answers them when
// they are switched off, so that a client shows the right message rather than a bare 404. Each gives way to the
// real thing when its feature lands.

/** A handler that answers as GoTrue answers a switched-off feature. */
const off =
  (code: ErrorCode, message: string): Handler<AppEnv> =>
  () => {
    throw new AuthError(code, message);
  };

export const oauthServerOff = off("feature_disabled", "OAuth server is disabled");
export const scimOff = off("feature_disabled", "SCIM server is disabled");

/** The factor endpoints refuse anonymous users before anything else, as GoTrue's do (handlers/factors.ts). */
export const notAnonymous: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("principal").user.isAnonymous) {
    throw new AuthError("no_authorization", "Anonymous user not allowed to perform these actions", {
      case: "anonymous_caller",
    });
  }
  await next();
};
