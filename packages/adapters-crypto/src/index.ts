export { type Argon2Parameters, createArgon2PasswordHasher, recommendedArgon2 } from "./argon2-password-hasher.ts";
export { createHs256TokenSigner } from "./hs256-token-signer.ts";
export { createSecrets, cryptoRandom } from "./node-crypto.ts";
