import { createWebAuthnCeremony } from "@latchkey/adapters-webauthn";
import type { WebAuthnCeremony } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/**
 * WEBAUTHN_RP_*: the relying party, when passkeys or WebAuthn factors are on (the checks have made sure it is
 * complete then); none otherwise.
 */
export function createConfiguredWebAuthn(config: Config): WebAuthnCeremony | null {
  const { passkey, mfa, webauthn } = config;
  if (!passkey.enabled && !mfa.webAuthnEnrollEnabled && !mfa.webAuthnVerifyEnabled) return null;
  return createWebAuthnCeremony({
    id: webauthn.rpId ?? "",
    name: webauthn.rpDisplayName ?? "",
    origins: webauthn.rpOrigins ?? [],
  });
}
