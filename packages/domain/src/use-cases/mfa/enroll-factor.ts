import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { Factor, FactorType } from "../../model/factor.ts";
import type { User } from "../../model/user.ts";
import { recordAudit } from "../../services/audit.ts";
import { factorPhone, sessionOf } from "./factors.ts";

export interface EnrollFactorInput {
  readonly principal: Principal;
  /** `totp` (when absent), `phone`, `webauthn`. */
  readonly factorType: string | undefined;
  readonly friendlyName: string | undefined;
  /** TOTP: the name the authenticator app shows; SITE_URL's host when absent. */
  readonly issuer: string | undefined;
  /** Phone: the number, E.164. */
  readonly phone: string | undefined;
  readonly context: RequestContext;
}

export type EnrolledFactor =
  | {
      readonly factor: Factor;
      readonly totp: { readonly qrCode: string; readonly secret: string; readonly uri: string };
    }
  /** `phone` as the request sent it, as GoTrue echoes it. */
  | { readonly factor: Factor; readonly phone: string }
  /** WebAuthn: its credential comes with its first challenge (a `create` ceremony) and verification. */
  | { readonly factor: Factor };

/**
 * POST /factors: a new unverified factor, which a first verified code will prove. Rules as GoTrue's: idle
 * unverified factors go first; a friendly name is unique per user (an absent one too); MFA_MAX_ENROLLED_FACTORS
 * and MFA_MAX_VERIFIED_FACTORS bound the count; a user with a verified factor enrolls another only at aal2; an
 * unverified phone factor of the same number is replaced, a verified one refuses the enrollment.
 */
export async function enrollFactor(deps: Deps, input: EnrollFactorInput): Promise<EnrolledFactor> {
  const session = sessionOf(input.principal);
  const type = enrollableType(deps, input.factorType ?? "totp");
  if (type === "phone" && !input.phone) {
    throw new AuthError("validation_failed", "Phone number required to enroll Phone factor");
  }
  const phone = type === "phone" ? factorPhone(input.phone ?? "") : null;
  const name = input.friendlyName ?? "";
  const now = deps.clock.now();
  const secret = type === "totp" ? deps.totp.newSecret() : null;
  const id = deps.random.uuid();

  const factor = await deps.tx.run(async (stores) => {
    const userId = input.principal.user.id;
    const locked = await stores.users.findById(userId, { forUpdate: true });
    if (!locked || locked.deletedAt !== null) throw new AuthError("user_not_found", "User not found");
    if (phone !== null) {
      const same = locked.factors.filter((each) => each.type === "phone" && each.phone === phone);
      if (same.some((each) => each.status === "verified")) {
        throw new AuthError(
          "mfa_verified_factor_exists",
          "A verified phone factor already exists, unenroll the existing factor to continue",
        );
      }
      if (same.length > 0) await stores.factors.deleteUnverified(userId, { type: "phone", phone });
    }
    const idleBefore = new Date(now.getTime() - deps.policy.mfa.factorExpirySeconds * 1000);
    await stores.factors.deleteUnverified(userId, { idleBefore });
    const user = (await stores.users.findById(userId)) ?? locked;
    assertMayEnroll(deps, user, name, session.aal === "aal2");

    const created: Factor = {
      id,
      userId,
      type,
      friendlyName: name === "" ? null : name,
      status: "unverified",
      sealedSecret: secret === null ? null : deps.factorSecrets.seal(id, secret),
      phone,
      lastTotpStep: null,
      webauthn: null,
      lastChallengedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await stores.factors.insert(created);
    await recordAudit(deps, stores, {
      action: "factor_in_progress",
      actor: user,
      context: input.context,
      traits: { factor_id: id, factor_type: type },
    });
    return created;
  });

  if (type === "webauthn") return { factor };
  if (secret === null) return { factor, phone: input.phone ?? "" };
  const user = input.principal.user;
  const accountName = user.email ?? user.phone ?? user.id;
  const issuer = input.issuer || new URL(deps.policy.redirect.siteUrl).host;
  const { uri, qrCode } = deps.totp.enrollment({ secret, issuer, accountName });
  return { factor, totp: { qrCode, secret, uri } };
}

function enrollableType(deps: Deps, requested: string): FactorType {
  switch (requested) {
    case "totp":
      if (!deps.policy.mfa.totp.enroll)
        throw new AuthError("mfa_totp_enroll_not_enabled", "MFA enroll is disabled for TOTP");
      return "totp";
    case "phone":
      if (!deps.policy.mfa.phone.enroll) {
        throw new AuthError("mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone");
      }
      return "phone";
    case "webauthn":
      if (!deps.policy.mfa.webauthn.enroll || deps.webauthn === null) {
        throw new AuthError("mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn");
      }
      return "webauthn";
    default:
      throw new AuthError("validation_failed", "factor_type needs to be totp, phone, or webauthn");
  }
}

/** GoTrue's checks, in its order: the name, the counts, then the assurance level. */
function assertMayEnroll(deps: Deps, user: User, name: string, atAal2: boolean): void {
  // compat: GoTrue compares names as given, so a second factor without a name conflicts with the first
  // (docs/compatibility.md, "MFA").
  if (user.factors.some((each) => (each.friendlyName ?? "") === name)) {
    throw new AuthError(
      "mfa_factor_name_conflict",
      `A factor with the friendly name ${JSON.stringify(name)} for this user already exists`,
    );
  }
  const verified = user.factors.filter((each) => each.status === "verified").length;
  const { maxEnrolledFactors, maxVerifiedFactors } = deps.policy.mfa;
  if (user.factors.length >= maxEnrolledFactors || verified >= maxVerifiedFactors) {
    throw new AuthError(
      "too_many_enrolled_mfa_factors",
      "Maximum number of verified factors reached, unenroll to continue",
    );
  }
  if (verified > 0 && !atAal2) {
    throw new AuthError("insufficient_aal", "AAL2 required to enroll a new factor");
  }
}
