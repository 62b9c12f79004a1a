import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { normalizeEmail } from "../../model/email.ts";
import {
  hasExpired,
  kindsVerifiedBy,
  MAX_FAILED_ATTEMPTS,
  type OneTimeToken,
  PHONE_VERIFY_TYPES,
  PKCE_PREFIX,
  type VerifyType,
} from "../../model/one-time-token.ts";
import { normalizePhone } from "../../model/phone.ts";
import { isBanned, type User } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { refusedBy } from "../../services/abuse/refusal.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { assertPasswordStrong } from "../../services/accounts/password-strength.ts";
import { grantSignIn, type OpenedSession, openSession } from "../../services/sessions.ts";
import { issueAuthCode } from "../../services/tokens/auth-code.ts";
import { linkTokenDigest, otpDigest } from "../../services/tokens/digests.ts";
import { applyVerification } from "./apply-verification.ts";

export interface VerifyInput {
  readonly type: VerifyType;
  /**
   * The token a link carried (GoTrue's token_hash), or the address and the code typed from the mail, or the number
   * and the code typed from the SMS (types `sms` and `phone_change`).
   */
  readonly proof:
    | { readonly linkToken: string }
    | { readonly email: string; readonly code: string }
    | { readonly phone: string; readonly code: string };
  /**
   * Whether a browser followed the link (GET /verify). A PKCE link then yields a code to exchange with the verifier;
   * handed to POST /verify instead, it yields nothing, or the link alone would skip the verifier.
   */
  readonly followedLink: boolean;
  /** POST /verify of a signup may set the password of an account that has none; it never has to. */
  readonly password?: string | undefined;
  readonly context: RequestContext;
}

export type VerifyResult =
  | { readonly kind: "session"; readonly grant: SessionGrant }
  | { readonly kind: "auth_code"; readonly authCode: string }
  /** The first of the two confirmations of a secure email change: the other address must confirm too. */
  | { readonly kind: "awaiting_other_address" };

const linkInvalid = () => new AuthError("otp_expired", "Email link is invalid or has expired");
const codeInvalid = () => new AuthError("otp_expired", "Token has expired or is invalid");

type Outcome =
  | { readonly kind: "failed"; readonly error: AuthError; readonly wrongCode: boolean }
  | ({ readonly kind: "session"; readonly user: User } & OpenedSession)
  | { readonly kind: "auth_code"; readonly authCode: string }
  | { readonly kind: "awaiting_other_address" };

/** Verifies an emailed link or code, or a texted code, and does what it was issued for (see apply-verification.ts). */
export async function verify(deps: Deps, input: VerifyInput): Promise<VerifyResult> {
  await limitPerClient(deps, "verify", input.context);
  if (!("linkToken" in input.proof)) await assertWrongCodesLeft(deps, input.context);
  const byPhone = (PHONE_VERIFY_TYPES as readonly string[]).includes(input.type);
  if (byPhone !== "phone" in input.proof) {
    const message = byPhone
      ? "Verify requires a phone number with the token"
      : "Verify requires an email address with the token";
    throw new AuthError("validation_failed", message);
  }
  const byLink = "linkToken" in input.proof;
  if (byLink && !input.followedLink && input.proof.linkToken.startsWith(PKCE_PREFIX)) {
    throw new AuthError(
      "validation_failed",
      "This link belongs to a PKCE flow: open it in the browser that asked for it, which exchanges the code with its verifier",
    );
  }
  // Hashing is slow: done before the transaction, used only if the account turns out to need a password.
  const newPasswordHash = input.password ? await hashNewPassword(deps, input.password) : undefined;

  // A wrong code is returned, not thrown, so that its count commits although the request fails. Anything failing
  // after the token was taken throws instead: the transaction rolls back and the token stays usable.
  const outcome = await deps.tx.run(async (stores): Promise<Outcome> => {
    const found = await findToken(deps, stores, input);
    if ("error" in found) return { kind: "failed", error: found.error, wrongCode: found.wrongCode };
    const { token } = found;
    // Of two concurrent uses of one token, only one deletes it.
    if (!(await stores.oneTimeTokens.delete(token.id))) throw byLink ? linkInvalid() : codeInvalid();

    const user = await stores.users.findById(token.userId, { forUpdate: true });
    if (!user) throw byLink ? linkInvalid() : codeInvalid();
    if (isBanned(user, deps.clock.now())) throw new AuthError("user_banned", messages.userBanned);

    const applied = await applyVerification(deps, stores, {
      user,
      token,
      newPasswordHash,
      context: input.context,
    });
    if (applied.kind === "awaiting_other_address") return applied;

    if (byLink && input.followedLink && token.codeChallenge !== null && token.codeChallengeMethod !== null) {
      const authCode = await issueAuthCode(deps, stores, {
        userId: applied.user.id,
        pkce: { challenge: token.codeChallenge, method: token.codeChallengeMethod },
        authenticationMethod: applied.method,
        provider: null,
        createdAt: deps.clock.now(),
      });
      return { kind: "auth_code", authCode };
    }
    // compat: a session opened straight from a link or code records `otp`, whatever it was mailed for, as GoTrue's
    // does (auth-js's recovery-session logic reads it); a PKCE exchange keeps the flow's method (above).
    const opened = await openSession(deps, stores, applied.user, { method: "otp", context: input.context });
    return { kind: "session", user: applied.user, ...opened };
  });

  switch (outcome.kind) {
    case "failed":
      if (outcome.wrongCode) await countWrongCode(deps, input.context);
      throw outcome.error;
    case "session":
      return { kind: "session", grant: await grantSignIn(deps, outcome.user, outcome) };
    default:
      return outcome;
  }
}

async function hashNewPassword(deps: Deps, password: string): Promise<string> {
  await assertPasswordStrong(deps, password);
  return deps.hasher.hash(password);
}

/**
 * The unexpired token the proof designates, of a kind the type accepts. A code is a guess at every token pending
 * for its address: each spends one of their MAX_FAILED_ATTEMPTS before it is compared, and a token with none left
 * is no longer matched by code (its link still works). `wrongCode` says that the code matched nothing.
 */
async function findToken(
  deps: Deps,
  stores: Stores,
  input: VerifyInput,
): Promise<{ token: OneTimeToken } | { error: AuthError; wrongCode: boolean }> {
  const kinds = kindsVerifiedBy(input.type);
  const now = deps.clock.now();
  const lifetime = deps.policy.otp;

  if ("linkToken" in input.proof) {
    const token = await stores.oneTimeTokens.findByLinkTokenHash(linkTokenDigest(deps.secrets, input.proof.linkToken));
    if (!token || !kinds.includes(token.kind) || hasExpired(token, now, lifetime))
      return { error: linkInvalid(), wrongCode: false };
    return { token };
  }

  const address = "phone" in input.proof ? normalizePhone(input.proof.phone) : normalizeEmail(input.proof.email);
  const expected = otpDigest(deps.secrets, address, input.proof.code);
  let matched: OneTimeToken | undefined;
  for (const candidate of await stores.oneTimeTokens.findByAddress(address, kinds)) {
    if (!(await stores.oneTimeTokens.takeCodeAttempt(candidate.id, MAX_FAILED_ATTEMPTS))) continue;
    if (deps.secrets.equal(candidate.otpHash, expected)) matched ??= candidate;
  }
  if (matched && !hasExpired(matched, now, lifetime)) return { token: matched };
  return { error: codeInvalid(), wrongCode: matched === undefined };
}

const wrongCodesKey = (context: RequestContext) => `ip:wrong_codes:${context.ip}`;

/**
 * security: a client that sent RATE_LIMIT_WRONG_CODES wrong codes within its window may try no more, with GoTrue's
 * 429, before anything is looked up: every code dies after a few wrong guesses, so without this one client could
 * kill the codes of address after address. A client whose address is unknown is not counted.
 */
async function assertWrongCodesLeft(deps: Deps, context: RequestContext): Promise<void> {
  if (context.ip === null) return;
  const decision = await deps.rateLimiter.peek(wrongCodesKey(context), deps.policy.requestLimits.wrongCodes.events);
  if (!decision.allowed) {
    throw refusedBy(
      deps,
      "wrong_codes",
      new AuthError("over_request_rate_limit", messages.requestRateLimit, {
        retryAfterSeconds: decision.retryAfterSeconds,
      }),
    );
  }
}

async function countWrongCode(deps: Deps, context: RequestContext): Promise<void> {
  if (context.ip === null) return;
  const { events, perSeconds } = deps.policy.requestLimits.wrongCodes;
  await deps.rateLimiter.consume(wrongCodesKey(context), events, perSeconds);
}
