import type { AssertionSubject } from "@latchkey/domain";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";

// What the browser posted is untrusted JSON. These guards check the shape the library reads before it is handed
// over: the library assumes it (it reads fields of `response` without looking), and would throw a TypeError.

const BASE64URL = /^[A-Za-z0-9_-]+$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isBase64url = (value: unknown): value is string => typeof value === "string" && BASE64URL.test(value);

/** The envelope both answers share: a public-key credential whose id is base64url, and rawId the same string. */
function credentialOf(value: unknown): { id: string; response: Record<string, unknown> } | null {
  if (!isObject(value) || value["type"] !== "public-key") return null;
  const { id, rawId, response } = value;
  if (!isBase64url(id) || rawId !== id || !isObject(response)) return null;
  return { id, response };
}

export function isRegistrationResponse(value: unknown): value is RegistrationResponseJSON {
  const credential = credentialOf(value);
  if (credential === null) return false;
  const { clientDataJSON, attestationObject, transports } = credential.response;
  return (
    isBase64url(clientDataJSON) &&
    isBase64url(attestationObject) &&
    (transports === undefined || Array.isArray(transports))
  );
}

export function isAuthenticationResponse(value: unknown): value is AuthenticationResponseJSON {
  const credential = credentialOf(value);
  if (credential === null) return false;
  const { clientDataJSON, authenticatorData, signature, userHandle } = credential.response;
  return (
    isBase64url(clientDataJSON) &&
    isBase64url(authenticatorData) &&
    isBase64url(signature) &&
    (userHandle === undefined || userHandle === null || typeof userHandle === "string")
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The user handle as text: absent or empty is null (a credential that is not discoverable may carry none); a handle
 * that is not base64url of UTF-8 is undefined, as no credential of ours has it (ours are a user id's bytes).
 */
function userHandleOf(handle: string | null | undefined): string | null | undefined {
  if (handle === undefined || handle === null || handle === "") return null;
  if (!BASE64URL.test(handle)) return undefined;
  try {
    return utf8.decode(Buffer.from(handle, "base64url"));
  } catch {
    return undefined;
  }
}

export function assertionSubjectOf(response: unknown): AssertionSubject | null {
  if (!isAuthenticationResponse(response)) return null;
  const userHandle = userHandleOf(response.response.userHandle);
  return userHandle === undefined ? null : { credentialId: response.id, userHandle };
}

/** The transports a registration answer reports, as strings: the browser's word, kept only as a hint. */
export function transportsOf(response: RegistrationResponseJSON): string[] {
  const transports: unknown = response.response.transports;
  return Array.isArray(transports) ? transports.filter((t): t is string => typeof t === "string") : [];
}
