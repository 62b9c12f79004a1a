import type { Deps, Principal, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { amrMethodOf, type Factor, type MfaChallenge } from "../../model/factor.ts";
import type { RefreshToken } from "../../model/refresh-token.ts";
import type { Session } from "../../model/session.ts";
import type { User } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import type { WebAuthnKey } from "../../model/webauthn.ts";
import type { Stores } from "../../ports/stores.ts";
import { refusedBy } from "../../services/abuse/refusal.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { auditEntry } from "../../services/audit.ts";
import { mfaAttempt } from "../../services/hooks/verification-attempts.ts";
import { accessClaims, grantSession, type OpenedSession } from "../../services/sessions.ts";
import { mfaCodeDigest, refreshTokenDigest } from "../../services/tokens/digests.ts";
import { assertVerifyEnabled, factorOf, notifyFactor, sessionOf } from "./factors.ts";
import { verifiedFactorKey, type WebAuthnAnswer } from "./webauthn-factor.ts";

export interface VerifyFactorInput {
  readonly principal: Principal;
  readonly factorId: string;
  readonly challengeId: string;
  /** TOTP and phone: the code. */
  readonly code: string;
  /** WebAuthn: the browser's answer to the challenge's ceremony. */
  readonly webauthn?: WebAuthnAnswer | undefined;
  readonly context: RequestContext;
}

/**
 * security: wrong codes a factor may take per window, whatever the client: a TOTP code is one of a million, and
 * three are valid at any moment, so this bounds a guesser to a negligible chance, while the owner can mistype.
 */
const MAX_WRONG_CODES = 10;
const WRONG_CODES_WINDOW_SECONDS = 900;
const REFRESH_TOKEN_BYTES = 32;

type Outcome = ({ readonly kind: "verified"; readonly user: User } & OpenedSession) | Failed;

type Failed = { readonly kind: "failed"; readonly error: AuthError };

/**
 * A challenge of the factor answered: for TOTP, the time step of the code (null for the others); for WebAuthn, the
 * factor's credential as the answer leaves it.
 */
interface Answered {
  readonly kind: "answered";
  readonly challenge: MfaChallenge;
  readonly step: number | null;
  readonly webauthn: WebAuthnKey | null;
  readonly now: Date;
}

/** What a right answer proves; undefined for a wrong one. */
type Acceptance = { readonly step: number | null; readonly webauthn: WebAuthnKey | null } | undefined;

/**
 * POST /factors/<id>/verify: a code answering a challenge of the factor. On success, in one transaction, as
 * GoTrue does: the challenge is used up, the factor is verified (the first time), the session goes to aal2 with the
 * factor's method first in its amr and a new refresh token (the aal1 one can no longer refresh; presented again, it
 * ends the session as any replaced token does), the user's other aal1 sessions end, and the user's other unverified
 * factors of the type go. A TOTP code is accepted for a later time step than the last one accepted only. Where
 * this differs from GoTrue: docs/compatibility.md, "MFA".
 */
export async function verifyFactor(deps: Deps, input: VerifyFactorInput): Promise<SessionGrant> {
  const session = sessionOf(input.principal);
  await limitPerClient(deps, "mfa_verify", input.context);
  if (!isUuid(input.challengeId)) throw new AuthError("validation_failed", "challenge_id must be an UUID");
  if (input.code === "" && input.webauthn === undefined) {
    throw new AuthError("validation_failed", "Code must be provided");
  }

  const userId = input.principal.user.id;
  // Failures are returned, so that an expired challenge's removal commits although the request fails.
  const outcome = await deps.tx.run(async (stores): Promise<Outcome> => {
    const factor = await factorOf(stores, userId, input.factorId, true);
    const answered = await checkAnswer(deps, stores, factor, input);
    if (answered.kind === "failed") return answered;
    return completeVerification(deps, stores, input, { session, factor, answered });
  });

  if (outcome.kind === "failed") throw outcome.error;
  return grantSession(deps, outcome.user, outcome);
}

/**
 * Whether the code answers a live challenge of the factor, asked from the address that asked for the challenge. An
 * expired challenge goes, and a wrong code counts against the factor.
 */
async function checkAnswer(
  deps: Deps,
  stores: Stores,
  factor: Factor,
  input: VerifyFactorInput,
): Promise<Answered | Failed> {
  const wrongCodes = `mfa_wrong_codes:${input.factorId}`;
  // security: the factor's wrong codes are checked, and counted below, while its row is locked, so concurrent
  // verifications take turns: a burst of guesses gets no more codes evaluated than the limit.
  const left = await deps.rateLimiter.peek(wrongCodes, MAX_WRONG_CODES);
  if (!left.allowed) {
    const error = new AuthError("over_request_rate_limit", messages.requestRateLimit, {
      retryAfterSeconds: left.retryAfterSeconds,
    });
    throw refusedBy(deps, "wrong_codes", error);
  }
  assertVerifyEnabled(deps, factor.type);
  const challenge = await stores.factors.lockChallenge(factor.id, input.challengeId);
  if (!challenge) {
    throw new AuthError("mfa_factor_not_found", "MFA factor with the provided challenge ID not found", {
      case: "unknown_challenge",
    });
  }
  const now = deps.clock.now();
  if (challenge.verifiedAt !== null || challenge.ip !== input.context.ip) {
    throw new AuthError("mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.");
  }
  if (now.getTime() >= challenge.createdAt.getTime() + deps.policy.mfa.challengeExpirySeconds * 1000) {
    await stores.factors.deleteChallenge(challenge.id);
    const error = new AuthError(
      "mfa_challenge_expired",
      `MFA challenge ${challenge.id} has expired, verify against another challenge or create a new challenge.`,
    );
    return { kind: "failed", error };
  }
  const accepted = await acceptedAnswer(deps, { factor, challenge, input, now });
  const attempt = {
    factorId: factor.id,
    factorType: factor.type,
    valid: accepted !== undefined,
    context: input.context,
  };
  const rejected = await mfaAttempt(deps, stores, { userId: factor.userId, ...attempt });
  if (rejected !== null) {
    // GoTrue signs the user out everywhere; returned, so that it commits although the request fails.
    await stores.sessions.deleteAllOfUser(factor.userId);
    return { kind: "failed", error: rejected };
  }
  if (accepted === undefined) {
    await deps.rateLimiter.consume(wrongCodes, MAX_WRONG_CODES, WRONG_CODES_WINDOW_SECONDS);
    return { kind: "failed", error: wrongAnswer(factor) };
  }
  return { kind: "answered", challenge, ...accepted, now };
}

/** A verification that succeeded: the caller's session, the factor, and the challenge it answered. */
interface Verification {
  readonly session: Session;
  readonly factor: Factor;
  readonly answered: Answered;
}

/**
 * Uses the challenge up, verifies the factor, takes the session to aal2 on a new refresh token, and ends what the
 * step up leaves behind: the user's other aal1 sessions and other unverified factors of the type.
 */
async function completeVerification(
  deps: Deps,
  stores: Stores,
  input: VerifyFactorInput,
  { session, factor, answered }: Verification,
): Promise<Outcome> {
  const { challenge, step, webauthn, now } = answered;
  const userId = input.principal.user.id;
  const first = factor.status === "unverified";
  const verified: Factor = {
    ...factor,
    status: "verified",
    lastTotpStep: step ?? factor.lastTotpStep,
    webauthn: webauthn ?? factor.webauthn,
    updatedAt: now,
  };
  await stores.factors.markChallengeVerified(challenge.id, now);
  await stores.factors.update(verified);
  const refreshToken = deps.random.token(REFRESH_TOKEN_BYTES);
  const { upgraded, child } = stepUp(deps, session, { factor: verified, refreshToken, now });
  const audit = auditEntry(deps, {
    action: "verification_attempted",
    actor: input.principal.user,
    context: input.context,
    traits: { factor_id: factor.id, factor_type: factor.type, challenge_id: challenge.id },
  });
  if (!(await stores.sessions.rotate(upgraded, child, [audit]))) {
    // The session was refreshed, ended or signed out since this request read it.
    throw new AuthError("session_not_found", "Session not found");
  }
  // The level, which a rotation never writes; the new pointer keeps any other rotation off the row now.
  await stores.sessions.update(upgraded);
  await stores.sessions.deleteAllOfUser(userId, { except: session.id, onlyAal1: true });
  await stores.factors.deleteUnverified(userId, { type: factor.type, except: factor.id });
  const user = await stores.users.findById(userId);
  if (!user) throw new AuthError("user_not_found", "User not found");
  if (first) await notifyFactor(deps, stores, user, { kind: "mfa_factor_enrolled", factor: verified });
  const issuance = { user, session: upgraded, method: amrMethodOf(factor.type), context: input.context };
  return {
    kind: "verified",
    user,
    session: upgraded,
    refreshToken,
    claims: await accessClaims(deps, stores, issuance),
  };
}

/** Whether the answer is right: a code of the factor's challenge, or the WebAuthn ceremony it began. */
async function acceptedAnswer(
  deps: Deps,
  { factor, challenge, input, now }: { factor: Factor; challenge: MfaChallenge; input: VerifyFactorInput; now: Date },
): Promise<Acceptance> {
  if (factor.type === "webauthn") {
    const key = await verifiedFactorKey(deps, { factor, challenge, answer: input.webauthn });
    return key === null ? undefined : { step: null, webauthn: key };
  }
  if (input.code === "") throw new AuthError("validation_failed", "Code must be provided");
  const step = acceptedStep(deps, factor, { challenge, code: input.code, now });
  return step === undefined ? undefined : { step, webauthn: null };
}

/** The answer to a wrong code or signature, in GoTrue's words. */
function wrongAnswer(factor: Factor): AuthError {
  switch (factor.type) {
    case "totp":
      return new AuthError("mfa_verification_failed", "Invalid TOTP code entered");
    case "phone":
      return new AuthError("mfa_verification_failed", "Invalid MFA Phone code entered");
    case "webauthn":
      // compat: GoTrue answers a signature that does not verify with a 500; this is the code its passkeys use
      // (docs/compatibility.md, "Passkeys").
      return new AuthError("webauthn_verification_failed", "Credential verification failed");
  }
}

/**
 * Whether `code` answers the challenge: for TOTP, the time step it was computed for (a step after the last one
 * accepted), for phone null; undefined when it does not.
 */
function acceptedStep(
  deps: Deps,
  factor: Factor,
  { challenge, code, now }: { challenge: MfaChallenge; code: string; now: Date },
): number | null | undefined {
  if (factor.type !== "totp") {
    const expected = challenge.codeDigest;
    return expected !== null && deps.secrets.equal(mfaCodeDigest(deps.secrets, challenge.id, code), expected)
      ? null
      : undefined;
  }
  if (factor.sealedSecret === null) return undefined;
  const step = deps.totp.matchingStep(deps.factorSecrets.open(factor.id, factor.sealedSecret), code, now);
  if (step === null || (factor.lastTotpStep !== null && step <= factor.lastTotpStep)) return undefined;
  return step;
}

/** The session at aal2 through `factor`, pointing at a new first token, and that token. */
function stepUp(
  deps: Deps,
  session: Session,
  { factor, refreshToken, now }: { factor: Factor; refreshToken: string; now: Date },
) {
  const method = amrMethodOf(factor.type);
  const child: RefreshToken = {
    id: deps.random.uuid(),
    sessionId: session.id,
    parentId: session.refreshTokenId,
    tokenHash: refreshTokenDigest(deps.secrets, refreshToken),
    createdAt: now,
  };
  const upgraded: Session = {
    ...session,
    aal: "aal2",
    // Newest first, each method once (GoTrue's amr).
    amr: [{ method, at: now }, ...session.amr.filter((entry) => entry.method !== method)],
    factorId: factor.id,
    refreshTokenId: child.id,
    // No reuse interval for the aal1 token: it must not be answered with an aal2 one.
    previousRefreshTokenId: null,
    rotatedAt: now,
    updatedAt: now,
  };
  return { upgraded, child };
}
