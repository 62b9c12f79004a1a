import type { WebAuthnCeremony } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/**
 * WEBAUTHN_RP_*: the relying party, when passkeys or WebAuthn factors are on (the checks have made sure it is
 * complete then); none otherwise. Loaded only then: the WebAuthn library costs half a second and 25 MB at start.
 */
export async function createConfiguredWebAuthn(config: Config): Promise<WebAuthnCeremony | null> {
  const { passkey, mfa, webauthn } = config;
  if (!passkey.enabled && !mfa.webAuthnEnrollEnabled && !mfa.webAuthnVerifyEnabled) return null;
  const { createWebAuthnCeremony } = await import("@latchkey/adapters-webauthn");
  return createWebAuthnCeremony({
    id: webauthn.rpId ?? "",
    name: webauthn.rpDisplayName ?? "",
    origins: webauthn.rpOrigins ?? [],
  });
}
