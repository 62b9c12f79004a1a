// `pnpm build`: the server as plain JavaScript in dist/, for production. Running the TypeScript sources through
// tsx costs a transpiler in every process (about 60 MB of memory) and start-up time; the bundle costs neither.
import { fileURLToPath } from "node:url";
import { buildServer } from "./build-server.ts";

await buildServer(fileURLToPath(new URL("dist", import.meta.url)));
