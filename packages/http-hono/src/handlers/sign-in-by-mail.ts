import { AuthError } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { linkRequest, requestAudience } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { MagicLinkBody, OtpBody } from "../request/schemas.ts";

/** POST /otp: a code by SMS for a phone number, or a mail with a link and a code for an address. */
export const sendOtp = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, OtpBody);
  if (body.email && body.phone)
    throw new AuthError("validation_failed", "Only an email address or phone number should be provided");
  if (body.phone) {
    if (body.code_challenge || body.code_challenge_method)
      throw new AuthError("validation_failed", "PKCE not supported for phone OTP");
    const { messageId } = await c.var.auth.sendSmsOtp({
      phone: body.phone,
      createUser: body.create_user ?? true,
      data: body.data,
      channel: body.channel,
      audience: requestAudience(c),
      context: c.get("caller"),
    });
    return c.json({ message_id: messageId });
  }
  if (!body.email) throw new AuthError("validation_failed", "One of email or phone must be set");
  if (body.channel) throw new AuthError("validation_failed", "Channel should only be specified with Phone OTP");
  await c.var.auth.sendMagicLink({
    email: body.email,
    createUser: body.create_user ?? true,
    data: body.data,
    audience: requestAudience(c),
    ...linkRequest(c, body),
    context: c.get("caller"),
  });
  return c.json({});
};

/** POST /magiclink: the older way to ask for a sign-in mail, always creating the account. */
export const sendMagicLink = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, MagicLinkBody);
  await c.var.auth.sendMagicLink({
    email: body.email ?? "",
    createUser: true,
    data: body.data,
    audience: requestAudience(c),
    ...linkRequest(c, body),
    context: c.get("caller"),
  });
  return c.json({});
};
