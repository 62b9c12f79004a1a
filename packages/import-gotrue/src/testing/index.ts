// Test support: a GoTrue-shaped database to import from; never imported by production code.

export {
  type AwkwardFixture,
  type CredentialBytes,
  type CredentialMaker,
  type FixtureAccount,
  seedAwkwardFixture,
} from "./awkward-fixture.ts";
export { createGotrueDatabase, type GotrueDatabase } from "./gotrue-database.ts";
export {
  gotrueLegacyRefreshToken,
  gotrueRefreshTokenHmacKey,
  gotrueSealedSecret,
  gotrueTokenHash,
  gotrueTotpSecret,
  gotrueV2RefreshToken,
  gotrueWebAuthnCredential,
} from "./gotrue-formats.ts";
export {
  type Aal,
  type FactorStatus,
  type FactorType,
  type GotrueAmrClaim,
  type GotrueAuditEntry,
  type GotrueChallenge,
  type GotrueFactor,
  type GotrueIdentity,
  type GotrueOneTimeToken,
  type GotruePasskey,
  type GotrueRefreshToken,
  type GotrueSamlProvider,
  type GotrueSession,
  type GotrueSsoDomain,
  type GotrueSsoProvider,
  type GotrueUser,
  type GotrueWebAuthnCredential,
  NIL_UUID,
  type OneTimeTokenType,
} from "./gotrue-rows.ts";
export { GOTRUE_SCHEMA_VERSION } from "./gotrue-schema.ts";
export { MANY_USERS_PASSWORD, seedManyUsers } from "./many-users.ts";
