import type { Passkey, WebAuthnKey } from "@latchkey/domain";
import type { GotrueRow } from "./gotrue-source.ts";
import { dateOf, nonEmpty, objectOf } from "./row-values.ts";

// GoTrue's WebAuthn credentials: its passkeys (`webauthn_credentials`, bytea columns) and its WebAuthn factors'
// credential (`mfa_factors.web_authn_credential`: go-webauthn's webauthn.Credential as Go's encoding/json writes it,
// bytes in standard base64). Latchkey spells the bytes base64url without padding. The user handle is the same (the
// UTF-8 of the user id), so a credential keeps working as long as the relying party (WEBAUTHN_RP_ID) is the same.

const NIL_AAGUID = "00000000-0000-0000-0000-000000000000";

/** A `webauthn_credentials` row as a passkey; null when its credential id or public key holds no bytes. */
export function mapPasskey(row: GotrueRow): Passkey | null {
  const credentialId = base64urlOfBytes(row["credential_id"]);
  const publicKey = base64urlOfBytes(row["public_key"]);
  if (credentialId === null || publicKey === null) return null;
  const createdAt = dateOf(row["created_at"]) ?? new Date(0);
  return {
    id: String(row["id"]),
    userId: String(row["user_id"]),
    credentialId,
    publicKey,
    signCount: Number(row["sign_count"] ?? 0),
    transports: stringsOf(row["transports"]),
    aaguid: aaguidOf(nonEmpty(row["aaguid"])),
    attestationType: nonEmpty(row["attestation_type"]) ?? "none",
    backupEligible: row["backup_eligible"] === true,
    backedUp: row["backed_up"] === true,
    // GoTrue's column defaults to '': unnamed.
    friendlyName: nonEmpty(row["friendly_name"]),
    createdAt,
    updatedAt: dateOf(row["updated_at"]) ?? createdAt,
    lastUsedAt: dateOf(row["last_used_at"]),
  };
}

/**
 * The key of a verified WebAuthn factor, from its `web_authn_credential` (and `web_authn_aaguid`, which GoTrue
 * writes beside it); null when the credential is missing or its id or public key cannot be read.
 */
export function webauthnKeyOfFactor(row: GotrueRow): WebAuthnKey | null {
  const credential = objectOf(row["web_authn_credential"]);
  const credentialId = base64urlOfText(credential["id"]);
  const publicKey = base64urlOfText(credential["publicKey"]);
  if (credentialId === null || publicKey === null) return null;
  const flags = objectOf(credential["flags"]);
  const authenticator = objectOf(credential["authenticator"]);
  const aaguidBytes = base64urlOfText(authenticator["AAGUID"]);
  const aaguid = aaguidBytes === null ? nonEmpty(row["web_authn_aaguid"]) : uuidOf(aaguidBytes);
  const signCount = authenticator["signCount"];
  return {
    credentialId,
    publicKey,
    signCount: typeof signCount === "number" && Number.isSafeInteger(signCount) ? signCount : 0,
    transports: stringsOf(credential["transport"]),
    aaguid: aaguidOf(aaguid),
    // go-webauthn before v0.17 kept the attestation format in attestationType; from v0.17 in attestationFormat.
    attestationType: nonEmpty(credential["attestationFormat"]) ?? nonEmpty(credential["attestationType"]) ?? "none",
    backupEligible: flags["backupEligible"] === true,
    backedUp: flags["backupState"] === true,
  };
}

/** A bytea column's value (node-postgres hands over a Buffer) as base64url; null when it holds no bytes. */
function base64urlOfBytes(value: unknown): string | null {
  if (!(value instanceof Uint8Array) || value.byteLength === 0) return null;
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64url");
}

/**
 * Go's []byte in JSON (standard base64, padded) as base64url; null when it is no string, empty, or not base64
 * (Buffer's decoding skips what it cannot read, so a value is taken only when it spells its bytes exactly).
 */
function base64urlOfText(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  const bytes = Buffer.from(value, "base64");
  const unpadded = value.replace(/=+$/, "");
  const spelled = [bytes.toString("base64").replace(/=+$/, ""), bytes.toString("base64url")];
  return bytes.byteLength > 0 && spelled.includes(unpadded) ? bytes.toString("base64url") : null;
}

/** 16 bytes (base64url) in uuid form; null for any other length. */
function uuidOf(base64url: string): string | null {
  const hex = Buffer.from(base64url, "base64url").toString("hex");
  if (hex.length !== 32) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** As the domain keeps an AAGUID: null for none, or for the zeros of authenticators that name no model. */
function aaguidOf(uuid: string | null): string | null {
  return uuid === null || uuid.toLowerCase() === NIL_AAGUID ? null : uuid.toLowerCase();
}

/** A JSON array's strings (a jsonb column may arrive as text); anything else is none. */
function stringsOf(value: unknown): string[] {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return [];
    }
  }
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === "string") : [];
}
