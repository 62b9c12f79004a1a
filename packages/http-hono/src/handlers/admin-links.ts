import { presentUser } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { redirectCandidates, requestAudience } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { GenerateLinkBody } from "../request/schemas.ts";
import type { HandlerDeps } from "./deps.ts";

/** POST /admin/generate_link: the link and code of a mail, made as if sent, for the admin to deliver. */
export const generateLink =
  ({ actionLink }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const body = await readJson(c, GenerateLinkBody);
    const generated = await c.var.auth.admin.generateLink({
      admin: c.get("admin"),
      type: body.type ?? "",
      email: body.email ?? "",
      newEmail: body.new_email,
      password: body.password,
      data: body.data,
      redirectTo: [body.redirect_to, body.redirectTo, ...redirectCandidates(c)],
      audience: requestAudience(c),
      context: c.get("caller"),
    });
    const { email } = generated;
    return c.json({
      ...presentUser(generated.user),
      action_link: actionLink(email),
      email_otp: email.otp,
      hashed_token: email.linkToken,
      verification_type: generated.verificationType,
      redirect_to: email.redirectTo,
    });
  };
