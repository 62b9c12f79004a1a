import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { settingsReference } from "../../src/config/settings-reference.ts";

describe("docs/settings.md", () => {
  it("is what the settings' declarations say (regenerate it with `npx --yes pnpm@10.34.8 settings-doc`)", () => {
    const written = readFileSync(join(import.meta.dirname, "..", "..", "..", "..", "docs", "settings.md"), "utf8");
    expect(written).toBe(settingsReference());
  });
});
