export { type Argon2Parameters, createArgon2PasswordHasher, recommendedArgon2 } from "./argon2-password-hasher.ts";
export { createSecrets, cryptoRandom } from "./node-crypto.ts";
export * from "./signing/index.ts";
