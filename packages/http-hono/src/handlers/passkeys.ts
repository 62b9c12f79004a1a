import { type Auth, AuthError, isUuid, type Passkey, timestamp } from "@latchkey/domain";
import type { Handler, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentSession } from "../present/session.ts";
import { pathId } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { PasskeyAnswerBody, PasskeyUpdateBody } from "../request/schemas.ts";

// /passkeys (sign-in with a passkey, and the signed-in user's passkeys) and the admin's view of a user's passkeys.

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** PASSKEY_ENABLED, checked before anything else (the caller's token included), as GoTrue's middleware does. */
export const passkeysOn =
  (auth: Auth): MiddlewareHandler<AppEnv> =>
  async (_c, next) => {
    if (!auth.policy.passkeys.enabled) throw new AuthError("passkey_disabled", "Passkeys are disabled");
    await next();
  };

/** GoTrue's passkey JSON, in lists and after a rename. */
function presentPasskey(passkey: Passkey) {
  return {
    id: passkey.id,
    ...(passkey.friendlyName ? { friendly_name: passkey.friendlyName } : {}),
    created_at: timestamp(passkey.createdAt),
    ...(passkey.lastUsedAt ? { last_used_at: timestamp(passkey.lastUsedAt) } : {}),
  };
}

const presentCeremony = (begun: { challengeId: string; options: unknown; expiresAt: Date }) => ({
  challenge_id: begun.challengeId,
  options: begun.options,
  expires_at: seconds(begun.expiresAt),
});

/** POST /passkeys/registration/options */
export const registrationOptions = (): Handler<AppEnv> => async (c) => {
  const begun = await c.var.auth.passkeys.startRegistration({ principal: c.get("principal") });
  return c.json(presentCeremony(begun));
};

/** POST /passkeys/registration/verify: the new passkey (no `last_used_at` yet). */
export const registrationVerify = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, PasskeyAnswerBody);
  const passkey = await c.var.auth.passkeys.verifyRegistration({
    principal: c.get("principal"),
    challengeId: body.challenge_id,
    credential: body.credential,
    context: c.get("caller"),
  });
  return c.json(presentPasskey(passkey));
};

/** POST /passkeys/authentication/options */
export const authenticationOptions = (): Handler<AppEnv> => async (c) => {
  const begun = await c.var.auth.passkeys.startSignIn({ context: c.get("caller") });
  return c.json(presentCeremony(begun));
};

/** POST /passkeys/authentication/verify: a session, as a token response. */
export const authenticationVerify = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, PasskeyAnswerBody);
  const grant = await c.var.auth.passkeys.signIn({
    challengeId: body.challenge_id,
    credential: body.credential,
    context: c.get("caller"),
  });
  return c.json(presentSession(grant));
};

/** GET /passkeys */
export const list = (): Handler<AppEnv> => async (c) => {
  const passkeys = await c.var.auth.passkeys.list({ principal: c.get("principal") });
  return c.json(passkeys.map(presentPasskey));
};

/** PATCH /passkeys/<id> */
export const rename = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, PasskeyUpdateBody);
  const passkey = await c.var.auth.passkeys.rename({
    principal: c.get("principal"),
    passkeyId: passkeyIdOf(c.req.param("passkey_id")),
    friendlyName: body.friendly_name,
    context: c.get("caller"),
  });
  return c.json(presentPasskey(passkey));
};

/** DELETE /passkeys/<id>: 204, as GoTrue answers. */
export const remove = (): Handler<AppEnv> => async (c) => {
  await c.var.auth.passkeys.delete({
    principal: c.get("principal"),
    passkeyId: passkeyIdOf(c.req.param("passkey_id")),
    context: c.get("caller"),
  });
  return c.body(null, 204);
};

/** GET /admin/users/<id>/passkeys */
export const adminList = (): Handler<AppEnv> => async (c) => {
  const passkeys = await c.var.auth.admin.listPasskeys({ userId: pathId(c, "user_id") });
  return c.json(passkeys.map(presentPasskey));
};

/** DELETE /admin/users/<id>/passkeys/<passkey id>: 204. */
export const adminDelete = (): Handler<AppEnv> => async (c) => {
  await c.var.auth.admin.deletePasskey({
    admin: c.get("admin"),
    userId: pathId(c, "user_id"),
    passkeyId: passkeyIdOf(c.req.param("passkey_id")),
    context: c.get("caller"),
  });
  return c.body(null, 204);
};

/** A passkey id from the path: one that cannot be a uuid names no passkey (GoTrue's 404). */
function passkeyIdOf(id: string | undefined): string {
  if (id === undefined || !isUuid(id)) {
    throw new AuthError("validation_failed", "Passkey not found", { case: "unknown_passkey" });
  }
  return id;
}
