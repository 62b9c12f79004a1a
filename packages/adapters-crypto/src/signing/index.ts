export {
  ASYMMETRIC_ALGORITHMS,
  type AsymmetricAlgorithm,
  DEFAULT_KEY_ALGORITHM,
  newKeyRing,
  withNewKey,
  withoutKey,
  withSigner,
} from "./generate-key.ts";
export { createJwtSigner, type JwtSignerOptions, validMethods } from "./jwt-signer.ts";
export {
  type KeyRing,
  KeyRingError,
  type PublicJwk,
  parseKeyRing,
  type RingKey,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from "./key-ring.ts";
