export { importedTokenId, v2RefreshToken } from "./gotrue-refresh-tokens.ts";
export {
  type GotrueBatch,
  type GotrueRow,
  type GotrueSource,
  openGotrueSource,
  type SourceBatch,
} from "./gotrue-source.ts";
export { type Dropped, type MapContext, type MappedBatch, mapBatch } from "./map-account.ts";
export { progressLine, summaryText } from "./report.ts";
export {
  DEFAULT_BATCH_SIZE,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  runImport,
} from "./run-import.ts";
