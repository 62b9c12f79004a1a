export type { FetchLimits as SamlMetadataReaderOptions } from "./fetch-metadata.ts";
export { createSamlMetadataReader } from "./metadata-reader.ts";
