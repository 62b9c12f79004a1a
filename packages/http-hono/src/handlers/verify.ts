import {
  AuthError,
  chooseRedirect,
  EMAIL_VERIFY_TYPES,
  PHONE_VERIFY_TYPES,
  PKCE_PREFIX,
  type VerifyType,
} from "@latchkey/domain";
import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { redirectedFailure } from "../errors/error-response.ts";
import { errorParams, sessionFragment, withFragment, withQuery } from "../present/redirect.ts";
import { presentSession } from "../present/session.ts";
import { redirectCandidates } from "../request/envelope.ts";
import { readJson } from "../request/read-json.ts";
import { VerifyBody } from "../request/schemas.ts";
import type { HandlerDeps } from "./deps.ts";

const EMAIL_TYPES: ReadonlySet<string> = new Set(EMAIL_VERIFY_TYPES);
const PHONE_TYPES: ReadonlySet<string> = new Set(PHONE_VERIFY_TYPES);
const AWAITING_OTHER = "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/**
 * GET /verify: a link followed in a browser. Whatever happens, the browser is sent on to an allowed target, an
 * error as parameters with the status and code the JSON answer would have.
 */
export const followLink =
  ({ auth }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const type = c.req.query("type");
    const token = c.req.query("token");
    if (!type) throw new AuthError("validation_failed", "Verify requires a verification type");
    if (!token) throw new AuthError("validation_failed", "Verify requires a token or a token hash");
    const target = chooseRedirect(redirectCandidates(c), auth.policy.redirect);
    const pkce = token.startsWith(PKCE_PREFIX);
    try {
      if (!EMAIL_TYPES.has(type)) throw new AuthError("validation_failed", "Unsupported verification type");
      const result = await c.var.auth.verify({
        type: type as VerifyType,
        proof: { linkToken: token },
        followedLink: true,
        context: c.get("caller"),
      });
      switch (result.kind) {
        case "session":
          return c.redirect(withFragment(target, sessionFragment(result.grant, type)), 303);
        case "auth_code":
          return c.redirect(withQuery(target, { code: result.authCode }), 303);
        case "awaiting_other_address":
          return c.redirect(
            withFragment(pkce ? withQuery(target, { message: AWAITING_OTHER }) : target, { message: AWAITING_OTHER }),
            303,
          );
      }
    } catch (thrown) {
      const { error, status } = redirectedFailure(c, thrown);
      const params = errorParams(status, error.code, status >= 500 ? "Unexpected failure" : error.message);
      // compat: PKCE apps read errors from the query (they look for ?code=), implicit ones from the fragment.
      return c.redirect(withFragment(pkce ? withQuery(target, params) : target, params), 303);
    }
  };

/** POST /verify: a code or a link's token hash sent by the app; a session in the answer. */
export const verify = (): Handler<AppEnv> => async (c) => {
  const body = await readJson(c, VerifyBody);
  if (!body.type) throw new AuthError("validation_failed", "Verify requires a verification type");
  if (body.token && body.token_hash)
    throw new AuthError("validation_failed", "Verify requires either a token or a token hash");
  if (!body.token && !body.token_hash)
    throw new AuthError("validation_failed", "Verify requires a token or a token hash");
  const byPhone = PHONE_TYPES.has(body.type);
  if (!byPhone && !EMAIL_TYPES.has(body.type))
    throw new AuthError("validation_failed", "Unsupported verification type");
  if (body.token_hash && (body.email || body.phone)) {
    throw new AuthError("validation_failed", "Only the token_hash and type should be provided");
  }
  if (body.token_hash && byPhone)
    throw new AuthError("validation_failed", "SMS codes are verified with the phone number and the token");
  if (body.token && body.email && body.phone) {
    throw new AuthError("validation_failed", "Only an email address or phone number should be provided on verify");
  }
  if (body.token && byPhone && !body.phone)
    throw new AuthError("validation_failed", "Verify requires a phone number with the token");
  if (body.token && !byPhone && !body.email)
    throw new AuthError("validation_failed", "Verify requires an email address with the token");
  const code = body.token!;
  const result = await c.var.auth.verify({
    type: body.type as VerifyType,
    proof: body.token_hash
      ? { linkToken: body.token_hash }
      : byPhone
        ? { phone: body.phone!, code }
        : { email: body.email!, code },
    followedLink: false,
    password: body.password,
    context: c.get("caller"),
  });
  if (result.kind === "awaiting_other_address") return c.json({ msg: AWAITING_OTHER, code: "200" });
  if (result.kind !== "session") throw new AuthError("unexpected_failure", "Unexpected verification result");
  return c.json({ ...presentSession(result.grant), type: body.type });
};
