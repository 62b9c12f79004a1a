export { recommendedArgon2 } from "@latchkey/adapters-crypto";
export { createServer, type Server, version } from "./compose.ts";
export { type Config, ConfigError, type ConfigSources, loadConfig, toPolicy } from "./config/index.ts";
export { createLogger } from "./logging/pino-logger.ts";
