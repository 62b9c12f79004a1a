import { AuthError, type LogoutScope } from "@latchkey/domain";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { handleAuthErrors } from "../errors/error-response.ts";
import { noHead } from "../middleware/no-head.ts";
import { requireUser } from "../middleware/require-user.ts";
import { presentUser } from "../present/user.ts";
import { readJson } from "../read-json.ts";
import { redirectCandidates, requestContext } from "../request-context.ts";
import { UpdateUserBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";

const scopes: ReadonlySet<string> = new Set<LogoutScope>(["global", "local", "others"]);

/** The signed-in user's own resources. */
export const userRoutes = ({ auth, clientAddress }: RouteDeps) =>
  new Hono<AppEnv>()
    // compat: a token whose user is gone is a 403 here, not the admin API's 404, as GoTrue answers it; an
    // unconfirmed address is a 422 on /reauthenticate.
    .onError(
      handleAuthErrors({
        user_not_found: 403,
        email_not_confirmed: 422,
        phone_not_confirmed: 422,
        validation_failed: (error) => (error.details?.["unprocessable"] ? 422 : 400),
      }),
    )
    .use("/user", requireUser(auth, { checkAudience: true }))
    .use("/logout", requireUser(auth))
    .use("/reauthenticate", noHead("GET"), requireUser(auth))
    .get("/user", (c) => c.json(presentUser(c.get("principal").user)))
    .put("/user", async (c) => {
      const body = await readJson(c, UpdateUserBody);
      const user = await auth.updateUser({
        principal: c.get("principal"),
        email: body.email,
        phone: body.phone,
        password: body.password,
        data: body.data,
        nonce: body.nonce,
        channel: body.channel,
        redirectTo: redirectCandidates(c),
        codeChallenge: body.code_challenge,
        codeChallengeMethod: body.code_challenge_method,
        context: requestContext(c, clientAddress),
      });
      return c.json(presentUser(user));
    })
    .get("/reauthenticate", async (c) => {
      const { messageId } = await auth.reauthenticate({ principal: c.get("principal"), context: requestContext(c, clientAddress) });
      return c.json(messageId === null ? {} : { message_id: messageId });
    })
    .post("/logout", async (c) => {
      const scope = c.req.query("scope") || "global";
      if (!scopes.has(scope)) throw new AuthError("validation_failed", `Unsupported logout scope ${JSON.stringify(scope)}`);
      await auth.signOut({ principal: c.get("principal"), scope: scope as LogoutScope, context: requestContext(c, clientAddress) });
      return c.body(null, 204);
    });
