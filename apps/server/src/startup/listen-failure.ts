import type { Config } from "../config/index.ts";
import { StartupFailure } from "./startup-failure.ts";

/** The HTTP listener's failure to bind as one line, or undefined for one this does not know. */
export function listenFailure(error: unknown, api: Pick<Config["api"], "host" | "port">): StartupFailure | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const where = api.host ? `port ${api.port} of ${api.host}` : `port ${api.port}`;
  const line =
    code === "EADDRINUSE"
      ? `${where} is in use by another program (another Latchkey?); stop it, or set PORT to a free port`
      : code === "EACCES"
        ? `${where} needs privileges this process does not have; set PORT to 1024 or above, and put a proxy in front`
        : code === "EADDRNOTAVAIL"
          ? `${where}: ${api.host} is not an address of this machine; fix API_HOST, or leave it unset to listen on every address`
          : undefined;
  return line === undefined ? undefined : new StartupFailure(line, { cause: error });
}
