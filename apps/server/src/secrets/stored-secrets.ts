import { createFactorSecrets, createSecrets, deriveFactorKey } from "@latchkey/adapters-crypto";
import type { FactorSecrets, Secrets } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/** The settings the keys of what is stored come from. */
export type StoredSecretsConfig = {
  readonly db: Pick<Config["db"], "secret">;
  readonly jwt: Pick<Config["jwt"], "secret">;
  readonly security: Pick<Config["security"], "encryptionKey" | "encryptionKeyId" | "decryptionKeys">;
};

/** DB_SECRET keys what is stored; JWT_SECRET stands in for it where it is unset (the start says so). */
export function storedSecretsOf(config: Pick<StoredSecretsConfig, "db" | "jwt">): Secrets {
  return createSecrets(config.db.secret ?? config.jwt.secret);
}

/** The id stored with secrets sealed under the key derived from DB_SECRET. */
const DERIVED_FACTOR_KEY_ID = "latchkey-db-secret";

/**
 * TOTP secrets are sealed with SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY when set, else a key derived from DB_SECRET
 * (the start refuses production without one of them while TOTP is on). The derived key and
 * SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS still open what they sealed, so setting or changing the key later loses
 * no factor; the same keys open GoTrue's sealed secrets, in the same format, when an import brings them.
 */
export function factorSecretsOf(config: StoredSecretsConfig): FactorSecrets {
  const derived = deriveFactorKey(config.db.secret ?? config.jwt.secret);
  const { encryptionKey, encryptionKeyId, decryptionKeys } = config.security;
  const older = new Map([[DERIVED_FACTOR_KEY_ID, derived], ...decryptionKeys]);
  return encryptionKey !== undefined && encryptionKeyId !== undefined
    ? createFactorSecrets({ keyId: encryptionKeyId, key: encryptionKey, decryptionKeys: older })
    : createFactorSecrets({ keyId: DERIVED_FACTOR_KEY_ID, key: derived, decryptionKeys: older });
}
