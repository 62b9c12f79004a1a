export { loadConfig, type ConfigSources } from "./load-config.ts";
export { ConfigError } from "./config-error.ts";
export { toPolicy } from "./to-policy.ts";
export type * from "./config.ts";
export type { DotenvSource } from "./env-sources.ts";
