import { describe, expect, it } from "vitest";
import { load, problemsOf, production } from "./support.ts";

describe("variables that name no setting", () => {
  it("are reported at start with the closest setting's name, under the prefix the operator used", () => {
    const config = production({
      AUTH_MAILER_AUTOCONFRIM: "true",
      GOTRUE_SITE_ULR: "https://app.example.com",
      AUTH_JWT_EXPIRY: "3600",
    });
    expect(config.warnings).toEqual(
      expect.arrayContaining([
        "AUTH_MAILER_AUTOCONFRIM is not a setting; did you mean AUTH_MAILER_AUTOCONFIRM?",
        "GOTRUE_SITE_ULR is not a setting; did you mean GOTRUE_SITE_URL?",
      ]),
    );
    // Nothing near enough to guess from.
    expect(config.warnings).toContain("AUTH_JWT_EXPIRY is not a setting of Latchkey; it is ignored");
    // The misspelt switch is not read: the default stands.
    expect(config.mailer.autoconfirm).toBe(false);
  });

  it("leave settings, their alternative names and other programs' variables alone", () => {
    const config = load({
      AUTH_SITE_URL: "https://app.example.com",
      GOTRUE_JWT_EXP: "600",
      API_PORT: "9000",
      OTEL_SERVICE_NAME: "auth",
    });
    expect(config.warnings.filter((warning) => warning.includes("is not a setting"))).toEqual([]);
  });

  it("are not repeated for settings of features not built, which stop the start instead", () => {
    expect(problemsOf({ AUTH_EXTERNAL_FLY_ENABLED: "true" })).toEqual([
      "AUTH_EXTERNAL_FLY_ENABLED: This OAuth provider or setting is not built in Latchkey yet; remove this variable or set it to false",
    ]);
    expect(load({ AUTH_EXTERNAL_FLY_ENABLED: "false" }).warnings.filter((warning) => warning.includes("FLY"))).toEqual(
      [],
    );
  });
});
