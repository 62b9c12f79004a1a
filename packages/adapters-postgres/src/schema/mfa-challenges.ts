import type { WebAuthnFactorChallenge } from "@latchkey/domain";
import { foreignKey, index, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { MfaFactorsTable } from "./mfa-factors.ts";

/**
 * `<ns>mfa_challenges`: what a factor's verification answers (GoTrue's table). `otp_code` holds the digest of a code
 * texted to a phone factor, never the code; `web_authn_session_data` (added last by a later migration) what a WebAuthn
 * factor's challenge expects, as json. A factor's challenges go with it.
 */
export function mfaChallengesTable(ns: string, factors: MfaFactorsTable) {
  return pgTable(
    `${ns}mfa_challenges`,
    {
      id: uuid("id").notNull(),
      factorId: uuid("factor_id").notNull(),
      ipAddress: text("ip_address"),
      otpCode: text("otp_code"),
      createdAt: timestamptz("created_at").notNull(),
      verifiedAt: timestamptz("verified_at"),
      webAuthnSessionData: jsonb("web_authn_session_data").$type<WebAuthnFactorChallenge>(),
    },
    (t) => [
      primaryKey({ name: `${ns}mfa_challenges_pkey`, columns: [t.id] }),
      foreignKey({
        name: `${ns}mfa_challenges_factor_id_fkey`,
        columns: [t.factorId],
        foreignColumns: [factors.id],
      }).onDelete("cascade"),
      index(`${ns}mfa_challenges_factor_id_idx`).on(t.factorId),
      // The clean-up removes them by age (0017).
      index(`${ns}mfa_challenges_created_at_idx`).on(t.createdAt),
    ],
  );
}

export type MfaChallengesTable = ReturnType<typeof mfaChallengesTable>;
