import { presentFactor } from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentSession } from "../present/session.ts";
import { pathId } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { AdminFactorBody, ChallengeFactorBody, EnrollFactorBody, VerifyFactorBody } from "../request/schemas.ts";

// /factors (the signed-in user's second factors, behind requireUser and notAnonymous) and the admin's view of a
// user's factors. There is no GET /factors: clients read `factors` from the user, as GoTrue's do.

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** POST /factors */
export const enroll = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, EnrollFactorBody);
  const enrolled = await c.var.auth.mfa.enroll({
    principal: c.get("principal"),
    factorType: body.factor_type,
    friendlyName: body.friendly_name,
    issuer: body.issuer,
    phone: body.phone,
    context: c.get("caller"),
  });
  const { factor } = enrolled;
  const common = { id: factor.id, type: factor.type, friendly_name: factor.friendlyName ?? "" };
  // compat: qr_code is the SVG markup itself; auth-js makes the data: URL.
  if ("totp" in enrolled) {
    const { qrCode, secret, uri } = enrolled.totp;
    return c.json({ ...common, totp: { qr_code: qrCode, secret, uri } });
  }
  return c.json("phone" in enrolled ? { ...common, phone: enrolled.phone } : common);
};

/** POST /factors/<id>/challenge */
export const challenge = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, ChallengeFactorBody);
  const created = await c.var.auth.mfa.challenge({
    principal: c.get("principal"),
    factorId: c.req.param("factor_id") ?? "",
    channel: body.channel,
    context: c.get("caller"),
  });
  const webauthn = created.webauthn
    ? { webauthn: { type: created.webauthn.type, credential_options: created.webauthn.credentialOptions } }
    : {};
  return c.json({ id: created.id, type: created.type, expires_at: seconds(created.expiresAt), ...webauthn });
};

/** POST /factors/<id>/verify: the session at aal2, as a token response. */
export const verify = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, VerifyFactorBody);
  const grant = await c.var.auth.mfa.verify({
    principal: c.get("principal"),
    factorId: c.req.param("factor_id") ?? "",
    challengeId: body.challenge_id ?? "",
    code: body.code ?? "",
    webauthn: body.webauthn && { type: body.webauthn.type, credentialResponse: body.webauthn.credential_response },
    context: c.get("caller"),
  });
  return c.json(presentSession(grant));
};

/** DELETE /factors/<id> */
export const unenroll = (): Handler<AppEnv> => async (c) => {
  const removed = await c.var.auth.mfa.unenroll({
    principal: c.get("principal"),
    factorId: c.req.param("factor_id") ?? "",
    context: c.get("caller"),
  });
  return c.json(removed);
};

/** GET /admin/users/<id>/factors: the bare array, as GoTrue answers it (auth-js wraps it as `{ factors }`). */
export const adminList = (): Handler<AppEnv> => async (c) => {
  const factors = await c.var.auth.admin.listFactors({ userId: pathId(c, "user_id") });
  return c.json(factors.map(presentFactor));
};

/** DELETE /admin/users/<id>/factors/<factor id>: the factor removed. */
export const adminDelete = (): Handler<AppEnv> => async (c) => {
  const factor = await c.var.auth.admin.deleteFactor({
    admin: c.get("admin"),
    userId: pathId(c, "user_id"),
    factorId: c.req.param("factor_id") ?? "",
    context: c.get("caller"),
  });
  return c.json(presentFactor(factor));
};

/** PUT /admin/users/<id>/factors/<factor id>: `friendly_name`, and `phone` for a phone factor; the factor updated. */
export const adminUpdate = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, AdminFactorBody);
  const factor = await c.var.auth.admin.updateFactor({
    admin: c.get("admin"),
    userId: pathId(c, "user_id"),
    factorId: c.req.param("factor_id") ?? "",
    friendlyName: body.friendly_name,
    phone: body.phone,
    context: c.get("caller"),
  });
  return c.json(presentFactor(factor));
};
