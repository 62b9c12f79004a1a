import type { Passkey } from "@latchkey/domain";
import type { WebAuthnCredentialsTable } from "../schema/webauthn-credentials.ts";

export type PasskeyRow = WebAuthnCredentialsTable["$inferSelect"];

/** The bytes a base64url value (without padding) spells. */
const bytesOf = (base64url: string): Buffer => Buffer.from(base64url, "base64url");

/** The base64url spelling (without padding) of bytes. */
const base64urlOf = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");

/**
 * The bytes of a credential id from a client, or null when it is no canonical base64url: Buffer's decoding skips
 * what it cannot read, so another spelling of a registered id (padding, stray characters, unused bits set) would
 * otherwise find its passkey.
 */
export function credentialIdBytes(credentialId: string): Buffer | null {
  const bytes = bytesOf(credentialId);
  return base64urlOf(bytes) === credentialId ? bytes : null;
}

/** The passkey's columns (Supabase Auth's names); the binary values as bytes. */
export function toPasskeyRow(passkey: Passkey): PasskeyRow {
  return {
    id: passkey.id,
    userId: passkey.userId,
    credentialId: bytesOf(passkey.credentialId),
    publicKey: bytesOf(passkey.publicKey),
    attestationType: passkey.attestationType,
    aaguid: passkey.aaguid,
    signCount: passkey.signCount,
    transports: passkey.transports,
    backupEligible: passkey.backupEligible,
    backedUp: passkey.backedUp,
    friendlyName: passkey.friendlyName,
    createdAt: passkey.createdAt,
    updatedAt: passkey.updatedAt,
    lastUsedAt: passkey.lastUsedAt,
  };
}

/** The domain's Passkey from its row. */
export function fromPasskeyRow(row: PasskeyRow): Passkey {
  return {
    id: row.id,
    userId: row.userId,
    credentialId: base64urlOf(row.credentialId),
    publicKey: base64urlOf(row.publicKey),
    signCount: row.signCount,
    transports: row.transports,
    aaguid: row.aaguid,
    attestationType: row.attestationType,
    backupEligible: row.backupEligible,
    backedUp: row.backedUp,
    friendlyName: row.friendlyName,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastUsedAt: row.lastUsedAt,
  };
}
