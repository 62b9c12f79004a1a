import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { FactorType, MfaChallenge } from "../../model/factor.ts";
import { refusedBy } from "../../services/abuse/refusal.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { recordAudit } from "../../services/audit.ts";
import {
  assertSmsQuotaLeft,
  channelField,
  smsChannelOf,
  testOtpFor,
  textAtOnce,
} from "../../services/delivery/sms-codes.ts";
import { mfaCodeDigest } from "../../services/tokens/digests.ts";
import { assertVerifyEnabled, factorOf, sessionOf } from "./factors.ts";
import { beginFactorCeremony, type FactorCeremony } from "./webauthn-factor.ts";

export interface ChallengeFactorInput {
  readonly principal: Principal;
  readonly factorId: string;
  /** Phone: `sms` (the default), or `whatsapp` through a provider that sends it. */
  readonly channel: string | undefined;
  readonly context: RequestContext;
}

export interface FactorChallenge {
  readonly id: string;
  readonly type: FactorType;
  readonly expiresAt: Date;
  /** WebAuthn: the ceremony for the browser to run (GoTrue's `webauthn`). */
  readonly webauthn?: FactorCeremony["offer"];
}

/**
 * POST /factors/<id>/challenge: what the next verification answers. A TOTP challenge is a record to answer with
 * the app's code; a phone challenge texts a code (MFA_PHONE_OTP_LENGTH digits, at most one per
 * MFA_PHONE_MAX_FREQUENCY; SMS_TEST_OTP numbers get their fixed code and no SMS); a WebAuthn challenge begins a
 * WebAuthn ceremony (webauthn-factor.ts). Only the client address that
 * asked can answer it, once, within MFA_CHALLENGE_EXPIRY_DURATION.
 */
export async function challengeFactor(deps: Deps, input: ChallengeFactorInput): Promise<FactorChallenge> {
  sessionOf(input.principal);
  await limitPerClient(deps, "mfa_challenge", input.context);
  const userId = input.principal.user.id;
  const now = deps.clock.now();
  const challenge = await deps.tx.run(async (stores) => {
    const factor = await factorOf(stores, userId, input.factorId, true);
    assertVerifyEnabled(deps, factor.type);
    const id = deps.random.uuid();
    let codeDigest: string | null = null;
    let text: (() => Promise<unknown>) | null = null;
    if (factor.type === "phone" && factor.phone !== null) {
      const phone = factor.phone;
      const channel = smsChannelOf(deps, input.channel);
      assertPhoneFrequency(deps, factor.lastChallengedAt, now);
      await assertSmsQuotaLeft(deps, phone);
      const testOtp = testOtpFor(deps, phone);
      const code = testOtp ?? deps.random.digits(deps.policy.mfa.phoneOtpLength);
      codeDigest = mfaCodeDigest(deps.secrets, id, code);
      const expiresAt = expiryOf(deps, now);
      const sms = { kind: "mfa", to: phone, otp: code, ...channelField(channel) } as const;
      const user = input.principal.user;
      if (testOtp === null) text = () => textAtOnce(deps, stores, { sms, expiresAt, user });
    }
    const ceremony = factor.type === "webauthn" ? await beginFactorCeremony(deps, input.principal.user, factor) : null;
    const created: MfaChallenge = {
      id,
      factorId: factor.id,
      ip: input.context.ip,
      codeDigest,
      webauthn: ceremony?.expected ?? null,
      createdAt: now,
      verifiedAt: null,
    };
    await stores.factors.insertChallenge(created);
    await stores.factors.update({ ...factor, lastChallengedAt: now, updatedAt: now });
    await recordAudit(deps, stores, {
      action: "challenge_created",
      actor: input.principal.user,
      context: input.context,
      traits: { factor_id: factor.id, factor_status: factor.status },
    });
    // Last: a provider refusing the number for good rolls all of it back (see textAtOnce).
    await text?.();
    return { id, type: factor.type, expiresAt: expiryOf(deps, now), ...(ceremony ? { webauthn: ceremony.offer } : {}) };
  });
  return challenge;
}

function expiryOf(deps: Deps, createdAt: Date): Date {
  return new Date(createdAt.getTime() + deps.policy.mfa.challengeExpirySeconds * 1000);
}

/** MFA_PHONE_MAX_FREQUENCY between two codes of one factor, in GoTrue's words. */
function assertPhoneFrequency(deps: Deps, lastChallengedAt: Date | null, now: Date): void {
  if (lastChallengedAt === null) return;
  const next = lastChallengedAt.getTime() + deps.policy.mfa.phoneMaxFrequencySeconds * 1000;
  if (next <= now.getTime()) return;
  const seconds = Math.ceil((next - now.getTime()) / 1000);
  throw refusedBy(
    deps,
    "sms_frequency",
    new AuthError(
      "over_sms_send_rate_limit",
      `For security purposes, you can only request this after ${seconds} seconds.`,
      {
        retryAfterSeconds: seconds,
      },
    ),
  );
}
