import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { handleAuthErrors } from "../errors/error-response.ts";
import { presentSession } from "../present/session.ts";
import { presentUser } from "../present/user.ts";
import { readJson } from "../read-json.ts";
import { redirectCandidates, requestAudience, requestContext } from "../request-context.ts";
import { SignupBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";

export const signupRoutes = ({ auth, clientAddress }: RouteDeps) =>
  new Hono<AppEnv>()
    // compat: a duplicate phone signup under autoconfirm is a 400, an email one a 422 (docs/compatibility.md, Errors).
    .onError(handleAuthErrors({ user_already_exists: (error) => (error.details?.["provider"] === "phone" ? 400 : 422) }))
    .post("/signup", async (c) => {
      const body = await readJson(c, SignupBody);
      const result = await auth.signUp({
        email: body.email,
        phone: body.phone,
        password: body.password,
        data: body.data,
        audience: requestAudience(c),
        redirectTo: redirectCandidates(c),
        codeChallenge: body.code_challenge,
        codeChallengeMethod: body.code_challenge_method,
        channel: body.channel,
        context: requestContext(c, clientAddress),
      });
      return c.json(result.kind === "session" ? presentSession(result.grant) : presentUser(result.user));
    });
