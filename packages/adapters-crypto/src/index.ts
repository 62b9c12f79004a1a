export { type Argon2Parameters, createArgon2PasswordHasher, recommendedArgon2 } from "./argon2-password-hasher.ts";
export {
  createFactorSecrets,
  deriveFactorKey,
  type FactorSecretsOptions,
  parseEncryptionKey,
} from "./factor-secrets.ts";
export { createSecrets, cryptoRandom } from "./node-crypto.ts";
export * from "./signing/index.ts";
export { totpAuthenticator } from "./totp.ts";
