import type { Factor, FactorStatus, FactorType, WebAuthnKey } from "@latchkey/domain";
import type { MfaFactorsTable } from "../schema/mfa-factors.ts";
import { fromOptionalTimestampJson, fromTimestampJson } from "./timestamp-json.ts";

export type FactorRow = MfaFactorsTable["$inferSelect"];

/** A factor as `json_agg` renders its row: column names as keys, timestamps as ISO 8601 strings. */
export interface FactorJson {
  readonly id: string;
  readonly user_id: string;
  readonly friendly_name: string | null;
  readonly factor_type: FactorType;
  readonly status: FactorStatus;
  readonly secret: string | null;
  readonly phone: string | null;
  /** A bigint, which json renders as a number. */
  readonly last_totp_step: number | null;
  readonly last_challenged_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** jsonb, which json renders as it is. */
  readonly web_authn_credential: WebAuthnKey | null;
}

/**
 * The WebAuthnKey of a factor's json column, with the domain's fields only: what the column holds is the store's
 * own writing, but a factor is handed out as a copy of nothing else.
 */
function webAuthnKeyOf(json: WebAuthnKey | null): WebAuthnKey | null {
  if (json === null) return null;
  const { credentialId, publicKey, signCount, transports, aaguid, attestationType, backupEligible, backedUp } = json;
  return { credentialId, publicKey, signCount, transports, aaguid, attestationType, backupEligible, backedUp };
}

/** The factor's columns (GoTrue's names: `factor_type`, `secret` for the sealed secret, `web_authn_credential`). */
export function toFactorRow(factor: Factor): FactorRow {
  return {
    id: factor.id,
    userId: factor.userId,
    friendlyName: factor.friendlyName,
    factorType: factor.type,
    status: factor.status,
    secret: factor.sealedSecret,
    phone: factor.phone,
    lastTotpStep: factor.lastTotpStep,
    lastChallengedAt: factor.lastChallengedAt,
    createdAt: factor.createdAt,
    updatedAt: factor.updatedAt,
    webAuthnCredential: webAuthnKeyOf(factor.webauthn),
  };
}

/** The domain's Factor from its row. */
export function fromFactorRow(row: FactorRow): Factor {
  return {
    id: row.id,
    userId: row.userId,
    type: row.factorType,
    friendlyName: row.friendlyName,
    status: row.status,
    sealedSecret: row.secret,
    phone: row.phone,
    lastTotpStep: row.lastTotpStep,
    webauthn: webAuthnKeyOf(row.webAuthnCredential),
    lastChallengedAt: row.lastChallengedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The domain's Factor from its json_agg rendering. */
export function fromFactorJson(json: FactorJson): Factor {
  return {
    id: json.id,
    userId: json.user_id,
    type: json.factor_type,
    friendlyName: json.friendly_name,
    status: json.status,
    sealedSecret: json.secret,
    phone: json.phone,
    lastTotpStep: json.last_totp_step,
    webauthn: webAuthnKeyOf(json.web_authn_credential),
    lastChallengedAt: fromOptionalTimestampJson(json.last_challenged_at),
    createdAt: fromTimestampJson(json.created_at),
    updatedAt: fromTimestampJson(json.updated_at),
  };
}
