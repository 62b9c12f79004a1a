import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import type { MfaPolicy, RequestLimits, RequestRate } from "../../policy.ts";
import { refusedBy } from "./refusal.ts";

/**
 * What a client's requests are counted under, as GoTrue counts them: every grant on /token together, /verify by
 * link or by code, each route that sends a code or link on its own (`otp` is /otp and /magiclink, which send the
 * same mail), and anonymous sign-ins.
 */
export type RequestBucket =
  | "token"
  | "verify"
  | "otp"
  | "recover"
  | "resend"
  | "signup"
  | "user"
  | "anonymous_sign_ins"
  /** RATE_LIMIT_PASSKEY: passkey sign-ins begun. */
  | "passkey"
  /** RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER: OAuth clients registering themselves. */
  | "oauth_client_register"
  /** RATE_LIMIT_SSO and SAML_RATE_LIMIT_ASSERTION: single sign-ons begun, and answers posted to the ACS. */
  | "sso"
  | "saml_assertion"
  /** MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY, counted apart for challenges and for verifications, as GoTrue does. */
  | "mfa_challenge"
  | "mfa_verify"
  /** RATE_LIMIT_WEB3: Web3 sign-ins, which GoTrue counts apart from the other grants of /token. */
  | "web3";

function rateOf(limits: RequestLimits, mfa: MfaPolicy, bucket: RequestBucket): RequestRate {
  switch (bucket) {
    case "token":
      return limits.token;
    case "verify":
      return limits.verify;
    case "anonymous_sign_ins":
      return limits.anonymousSignIns;
    case "passkey":
      return limits.passkey;
    case "oauth_client_register":
      return limits.oauthClientRegistrations;
    case "sso":
      return limits.sso;
    case "saml_assertion":
      return limits.samlAssertions;
    case "web3":
      return limits.web3;
    case "mfa_challenge":
    case "mfa_verify":
      return { events: mfa.challengeAndVerifyPerMinute, perSeconds: 60 };
    default:
      return limits.otp;
  }
}

/**
 * Counts one request of `bucket` from the caller's IP and refuses past its rate with GoTrue's 429, before the
 * request costs any hashing, sending or writing. A caller whose address the transport does not know is not counted.
 */
export async function limitPerClient(deps: Deps, bucket: RequestBucket, context: RequestContext): Promise<void> {
  if (context.ip === null) return;
  const rate = rateOf(deps.policy.requestLimits, deps.policy.mfa, bucket);
  const decision = await deps.rateLimiter.consume(`ip:${bucket}:${context.ip}`, rate.events, rate.perSeconds);
  if (!decision.allowed) {
    throw refusedBy(
      deps,
      `client_${bucket}`,
      new AuthError("over_request_rate_limit", messages.requestRateLimit, {
        retryAfterSeconds: decision.retryAfterSeconds,
      }),
    );
  }
}
