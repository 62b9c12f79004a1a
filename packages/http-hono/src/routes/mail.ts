import { AuthError } from "@latchkey/domain";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { handleAuthErrors } from "../errors/error-response.ts";
import { readJson } from "../read-json.ts";
import { redirectCandidates, requestAudience, requestContext } from "../request-context.ts";
import { MagicLinkBody, OtpBody, RecoverBody, ResendBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";

/** Sign-in by mail or SMS: /otp and /magiclink. */
export const signInByMailRoutes = ({ auth, clientAddress }: RouteDeps) =>
  new Hono<AppEnv>()
    // compat: GoTrue answers a disabled email provider with 422 here, and 400 on /recover and /resend.
    .onError(handleAuthErrors({ email_provider_disabled: 422 }))
    .post("/otp", async (c) => {
      const body = await readJson(c, OtpBody);
      if (body.email && body.phone) throw new AuthError("validation_failed", "Only an email address or phone number should be provided");
      if (body.phone) {
        if (body.code_challenge || body.code_challenge_method) {
          throw new AuthError("validation_failed", "PKCE not supported for phone OTP");
        }
        const { messageId } = await auth.sendSmsOtp({
          phone: body.phone,
          createUser: body.create_user ?? true,
          data: body.data,
          audience: requestAudience(c),
          channel: body.channel,
          context: requestContext(c, clientAddress),
        });
        return c.json({ message_id: messageId });
      }
      if (!body.email) throw new AuthError("validation_failed", "One of email or phone must be set");
      if (body.channel) throw new AuthError("validation_failed", "Channel should only be specified with Phone OTP");
      await auth.sendMagicLink({
        email: body.email,
        createUser: body.create_user ?? true,
        data: body.data,
        audience: requestAudience(c),
        redirectTo: redirectCandidates(c),
        codeChallenge: body.code_challenge,
        codeChallengeMethod: body.code_challenge_method,
        context: requestContext(c, clientAddress),
      });
      return c.json({});
    })
    .post("/magiclink", async (c) => {
      const body = await readJson(c, MagicLinkBody);
      await auth.sendMagicLink({
        email: body.email ?? "",
        createUser: true,
        data: body.data,
        audience: requestAudience(c),
        redirectTo: redirectCandidates(c),
        codeChallenge: body.code_challenge,
        codeChallengeMethod: body.code_challenge_method,
        context: requestContext(c, clientAddress),
      });
      return c.json({});
    });

/** Mail that recovers an account or repeats a confirmation: /recover and /resend. */
export const mailRoutes = ({ auth, clientAddress }: RouteDeps) =>
  new Hono<AppEnv>()
    .onError(handleAuthErrors())
    .post("/recover", async (c) => {
      const body = await readJson(c, RecoverBody);
      await auth.recoverPassword({
        email: body.email ?? "",
        redirectTo: redirectCandidates(c),
        codeChallenge: body.code_challenge,
        codeChallengeMethod: body.code_challenge_method,
        context: requestContext(c, clientAddress),
      });
      return c.json({});
    })
    .post("/resend", async (c) => {
      const body = await readJson(c, ResendBody);
      const { messageId } = await auth.resend({
        type: body.type ?? "",
        email: body.email,
        phone: body.phone,
        redirectTo: redirectCandidates(c),
        codeChallenge: body.code_challenge,
        codeChallengeMethod: body.code_challenge_method,
        context: requestContext(c, clientAddress),
      });
      return c.json({ message_id: messageId });
    });
