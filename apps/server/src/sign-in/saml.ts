import type { SamlServiceProvider } from "@latchkey/domain";
import type { Config } from "../config/index.ts";

/**
 * SAML_*: Latchkey as a SAML service provider, when SAML_ENABLED is on (the settings' checks have made sure its key
 * is fit then); none otherwise. Its certificates are made from the keys at each start, the same each time.
 */
export async function createConfiguredSamlServiceProvider(config: Config): Promise<SamlServiceProvider | null> {
  const { saml } = config;
  if (!saml.enabled) return null;
  const { createSamlServiceProvider, samlServiceProviderKey } = await import(
    "@latchkey/adapters-saml/service-provider"
  );
  const baseUrl = saml.externalUrl ?? config.api.externalUrl;
  const host = new URL(baseUrl).host;
  const keyOf = (privateKeyBase64: string) =>
    samlServiceProviderKey({ privateKeyBase64, host, allowEncryptedAssertions: saml.allowEncryptedAssertions });
  return createSamlServiceProvider({
    baseUrl,
    key: await keyOf(saml.privateKey ?? ""),
    nextKey: saml.privateKeyNext === undefined ? null : await keyOf(saml.privateKeyNext),
    allowEncryptedAssertions: saml.allowEncryptedAssertions,
  });
}
