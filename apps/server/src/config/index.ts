export type * from "./config.ts";
export { ConfigError } from "./config-error.ts";
export { type EffectiveSetting, type EffectiveSettings, effectiveSettings } from "./effective-settings.ts";
export {
  type ClientKeysConfig,
  type ConfigSources,
  type DatabaseConfig,
  type ImportConfig,
  loadClientKeysConfig,
  loadConfig,
  loadDatabaseConfig,
  loadImportConfig,
} from "./load-config.ts";
export { toPolicy } from "./to-policy.ts";
