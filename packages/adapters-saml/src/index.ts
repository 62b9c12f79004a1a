// The service provider (node-saml, xml-crypto, @peculiar/x509) is its own entry, "./service-provider": the server
// loads it only when SAML is on. The key check, which the settings run at every start, needs node:crypto alone.

export { checkSamlPrivateKey } from "./check-private-key.ts";
export type { FetchLimits as SamlMetadataReaderOptions } from "./fetch-metadata.ts";
export { createSamlMetadataReader } from "./metadata-reader.ts";
