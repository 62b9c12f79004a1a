import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { linkRequest } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { ResendBody } from "../request/schemas.ts";

/** POST /resend: a signup or address-change confirmation sent again. */
export const resend = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, ResendBody);
  const { messageId } = await c.var.auth.resend({
    type: body.type ?? "",
    email: body.email,
    phone: body.phone,
    ...linkRequest(c, body),
    context: c.get("caller"),
  });
  return c.json({ message_id: messageId });
};
