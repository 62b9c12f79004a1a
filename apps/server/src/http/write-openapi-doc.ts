import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeApi } from "@latchkey/http-hono";
import packageJson from "../../package.json" with { type: "json" };

// `pnpm openapi-doc`: rewrites docs/openapi.json (what GET /openapi.json serves) from the route table.
const text = `${JSON.stringify(describeApi(packageJson.version), null, 2)}\n`;
writeFileSync(join(import.meta.dirname, "..", "..", "..", "..", "docs", "openapi.json"), text);
