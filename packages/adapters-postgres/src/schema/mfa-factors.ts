import type { FactorStatus, FactorType, WebAuthnKey } from "@latchkey/domain";
import { sql } from "drizzle-orm";
import { bigint, foreignKey, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import type { UsersTable } from "./users.ts";

/** Names of the unique indexes a factor can violate: the store maps them to AuthErrors. */
export function mfaFactorConstraints(ns: string) {
  return {
    friendlyName: `${ns}mfa_factors_user_friendly_name_key`,
    verifiedPhone: `${ns}mfa_factors_user_verified_phone_key`,
    webauthnCredential: `${ns}mfa_factors_webauthn_credential_key`,
  } as const;
}

/**
 * `<ns>mfa_factors`: users' second factors (GoTrue's table). A friendly name, trimmed and when not empty, is unique
 * per user, and so is the phone number of a verified factor: partial unique indexes, since many factors have no name
 * and a number may be enrolled again while unverified. `secret` holds the TOTP secret sealed (never in clear).
 * `web_authn_credential` (GoTrue's name, added last by a later migration) holds a WebAuthn factor's credential as
 * json, the domain's WebAuthnKey; its credential id is unique across every user's factors.
 */
export function mfaFactorsTable(ns: string, users: UsersTable) {
  return pgTable(
    `${ns}mfa_factors`,
    {
      id: uuid("id").notNull(),
      userId: uuid("user_id").notNull(),
      friendlyName: text("friendly_name"),
      factorType: text("factor_type").$type<FactorType>().notNull(),
      status: text("status").$type<FactorStatus>().notNull(),
      secret: text("secret"),
      phone: text("phone"),
      lastTotpStep: bigint("last_totp_step", { mode: "number" }),
      lastChallengedAt: timestamptz("last_challenged_at"),
      createdAt: timestamptz("created_at").notNull(),
      updatedAt: timestamptz("updated_at").notNull(),
      webAuthnCredential: jsonb("web_authn_credential").$type<WebAuthnKey>(),
    },
    (t) => [
      primaryKey({ name: `${ns}mfa_factors_pkey`, columns: [t.id] }),
      foreignKey({ name: `${ns}mfa_factors_user_id_fkey`, columns: [t.userId], foreignColumns: [users.id] }).onDelete(
        "cascade",
      ),
      // Every user read loads the user's factors (the unique indexes below are partial, so they cannot answer it).
      index(`${ns}mfa_factors_user_id_idx`).on(t.userId),
      uniqueIndex(mfaFactorConstraints(ns).friendlyName)
        .on(t.userId, sql`trim(${t.friendlyName})`)
        .where(sql`trim(${t.friendlyName}) <> ''`),
      uniqueIndex(mfaFactorConstraints(ns).verifiedPhone)
        .on(t.userId, t.phone)
        .where(sql`${t.status} = 'verified' and ${t.phone} is not null`),
      // A credential registers one factor (a verification answering with another's is no proof of this one).
      uniqueIndex(mfaFactorConstraints(ns).webauthnCredential)
        .on(sql`(${t.webAuthnCredential} ->> 'credentialId')`)
        .where(sql`${t.webAuthnCredential} is not null`),
      // The clean-up removes factors left unverified by age (0017).
      index(`${ns}mfa_factors_unverified_created_idx`).on(t.createdAt).where(sql`${t.status} = 'unverified'`),
    ],
  );
}

export type MfaFactorsTable = ReturnType<typeof mfaFactorsTable>;
