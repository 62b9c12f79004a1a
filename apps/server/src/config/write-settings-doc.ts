import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { settingsReference } from "./settings-reference.ts";

// `pnpm settings-doc`: rewrites docs/settings.md from the declarations.
writeFileSync(join(import.meta.dirname, "..", "..", "..", "..", "docs", "settings.md"), settingsReference());
