import { describe, expect, it } from "vitest";
import { toPolicy } from "../../src/config/to-policy.ts";
import { publicSettings } from "../../src/http/public-settings.ts";
import { load, problemsOf } from "./support.ts";

describe("Web3 settings", () => {
  it("are off by default, with GoTrue's defaults", () => {
    const config = load({});
    const policy = toPolicy(config);
    expect(policy.web3).toEqual({
      solana: { enabled: false, maximumValiditySeconds: 600 },
      ethereum: { enabled: false, maximumValiditySeconds: 600 },
    });
    expect(policy.requestLimits.web3).toEqual({ events: 30, perSeconds: 300 });
    expect(publicSettings(config).external).toMatchObject({ web3_solana: false, web3_ethereum: false });
  });

  it("switch each chain on under GoTrue's names", () => {
    const config = load({
      GOTRUE_EXTERNAL_WEB3_SOLANA_ENABLED: "true",
      GOTRUE_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION: "5m",
      AUTH_EXTERNAL_WEB3_ETHEREUM_ENABLED: "true",
      AUTH_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION: "90s",
      GOTRUE_RATE_LIMIT_WEB3: "10",
    });
    const policy = toPolicy(config);
    expect(policy.web3).toEqual({
      solana: { enabled: true, maximumValiditySeconds: 300 },
      ethereum: { enabled: true, maximumValiditySeconds: 90 },
    });
    expect(policy.requestLimits.web3).toEqual({ events: 10, perSeconds: 300 });
    expect(publicSettings(config).external).toMatchObject({ web3_solana: true, web3_ethereum: true });
  });

  it("stop the start with a validity that is no duration", () => {
    expect(problemsOf({ AUTH_EXTERNAL_WEB3_SOLANA_MAXIMUM_VALIDITY_DURATION: "soon" })).toHaveLength(1);
    expect(problemsOf({ AUTH_EXTERNAL_WEB3_ETHEREUM_MAXIMUM_VALIDITY_DURATION: "0" })).toHaveLength(1);
  });
});
