export { createServer, version, type Server } from "./compose.ts";
export { ConfigError, loadConfig, toPolicy, type Config, type ConfigSources } from "./config/index.ts";
export { createLogger } from "./logging/pino-logger.ts";
export { recommendedArgon2 } from "@latchkey/adapters-crypto";
