import type { SamlMetadataReader } from "@latchkey/domain";
import { type FetchLimits, fetchMetadata } from "./fetch-metadata.ts";
import { parseMetadata } from "./parse-metadata.ts";

/** SamlMetadataReader: metadata parsed with xmldom, fetched with the platform's fetch within `limits`. */
export function createSamlMetadataReader(limits: FetchLimits): SamlMetadataReader {
  const { timeoutMs, maxBytes } = limits;
  return {
    parse: parseMetadata,
    fetch: (url) => fetchMetadata(url, { timeoutMs, maxBytes }),
  };
}
