export { createServer, version, type Server } from "./compose.ts";
export { ConfigError, loadConfig, toPolicy, type Config, type ConfigSources } from "./config/index.ts";
export { createLogger } from "./adapters/pino-logger.ts";
export { recommendedArgon2 } from "./adapters/argon2-password-hasher.ts";
