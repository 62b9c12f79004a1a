import type { SamlServiceProvider } from "@latchkey/domain";
import { authnRequest } from "./authn-request.ts";
import { readAssertion } from "./read-assertion.ts";
import { peekIssuer } from "./saml-response.ts";
import type { SamlServiceProviderKey } from "./service-provider-key.ts";
import { spMetadata } from "./sp-metadata.ts";

export interface SamlServiceProviderOptions {
  /** Where Latchkey is reached (API_EXTERNAL_URL); a trailing slash is dropped. */
  readonly baseUrl: string;
  /** SAML_PRIVATE_KEY, with its certificate (samlServiceProviderKey). */
  readonly key: SamlServiceProviderKey;
  /** SAML_PRIVATE_KEY_NEXT while it rotates in: advertised in the metadata and tried for decryption. */
  readonly nextKey: SamlServiceProviderKey | null;
  readonly allowEncryptedAssertions: boolean;
  /**
   * How far the IdP's clock may be from ours when reading an assertion's times, in seconds. 30 by default: hosts
   * kept by NTP differ by far less, and the window in which an intercepted assertion could be replayed past its
   * end grows with it.
   */
  readonly clockSkewSeconds?: number;
}

export {
  type SamlServiceProviderKey,
  type SamlServiceProviderKeyInput,
  samlServiceProviderKey,
} from "./service-provider-key.ts";

const DEFAULT_CLOCK_SKEW_SECONDS = 30;

/** SamlServiceProvider with node-saml: requests signed, answers verified, with the checks node-saml leaves out. */
export function createSamlServiceProvider(options: SamlServiceProviderOptions): SamlServiceProvider {
  const base = options.baseUrl.replace(/\/+$/, "");
  const entityId = `${base}/sso/saml/metadata`;
  const acsUrl = `${base}/sso/saml/acs`;
  const { key, nextKey, allowEncryptedAssertions } = options;
  const clockSkewMs = (options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS) * 1000;
  const decryptionKeys = allowEncryptedAssertions ? [key, ...(nextKey ? [nextKey] : [])] : [];
  return {
    entityId,
    acsUrl,
    rotating: nextKey !== null,
    metadata: async ({ validUntil, cacheDurationSeconds }) =>
      spMetadata({ entityId, acsUrl, key, nextKey, allowEncryptedAssertions, validUntil, cacheDurationSeconds }),
    authnRequest: ({ idp, relayState, nameIdFormat }) =>
      authnRequest({ entityId, acsUrl, key, idp, relayState, nameIdFormat }),
    peekIssuer,
    readAssertion: ({ idp, samlResponse, inResponseTo }) =>
      readAssertion({ entityId, acsUrl, decryptionKeys, clockSkewMs, idp, samlResponse, inResponseTo }),
  };
}
