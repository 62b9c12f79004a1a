import { OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { OAUTH_PROVIDER_NAMES, oauthProviderCatalog } from "../src/create-oauth-providers.ts";
import { PROVIDERS } from "../src/providers/index.ts";
import { closeStandIns, providerAt, startStandIn } from "./support/stand-in.ts";

afterEach(closeStandIns);

// What every provider owes the domain, whatever its protocol: checked on all of them at once, so a new one
// cannot forget it. The contract suite (provider-contract.test.ts) checks each one's requests and mapping from its
// fixture; each provider's own file, what only that provider does.

const WORDS = "the-provider-says-something-private";

/** A provider host that fails every request, saying something that must stay in the log. */
const failingHost = () =>
  startStandIn(
    Object.fromEntries(
      ["GET", "POST"].flatMap((method) =>
        ["/", "/.well-known/openid-configuration"].map((path) => [
          `${method} ${path}`,
          () => ({ status: 500, json: { error: WORDS } }),
        ]),
      ),
    ),
  );

describe("every provider", () => {
  it("is listed once, by its lower-case name, in order, and no other name of one is another's", () => {
    const names = PROVIDERS.map((provider) => provider.name);
    expect(names).toEqual([...new Set(names)].sort());
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*$/);
    const aliases = PROVIDERS.flatMap((provider) => (provider.alias === undefined ? [] : [provider.alias]));
    expect(aliases).toEqual(["linkedin_oidc", "slack_oidc"]);
    for (const alias of aliases) expect(names).not.toContain(alias);
  });

  it("is in the domain's catalog, its other name leading to it", () => {
    expect(oauthProviderCatalog).toEqual({
      names: OAUTH_PROVIDER_NAMES,
      aliases: { linkedin_oidc: "linkedin", slack_oidc: "slack" },
    });
  });

  for (const name of OAUTH_PROVIDER_NAMES) {
    it(`${name}: fails only with OAuthProviderFailure, naming the stage, never with the provider's words`, async () => {
      const host = await failingHost();
      const provider = providerAt(name, `${host.url}/realms/test`);
      const params = { code: "the-code", state: "s", oauth_token: "t", oauth_verifier: "v" };
      const outcomes = [
        await provider.authorize({ state: "s", scopes: [], params: [] }).then(
          (start) => {
            // Those that need nothing from the provider to start carry the state (Twitter asks first, and fails).
            expect(start.url).toContain("state=s");
            return null;
          },
          (error: unknown) => error,
        ),
        await provider.complete({ params, secret: "kept" }).then(
          () => new Error("completed against a failing provider"),
          (error: unknown) => error,
        ),
      ].filter((outcome) => outcome !== null);
      expect(outcomes.length).toBeGreaterThan(0);
      for (const failure of outcomes) {
        expect(failure).toBeInstanceOf(OAuthProviderFailure);
        expect((failure as OAuthProviderFailure).provider).toBe(name);
        expect((failure as Error).message).not.toContain(WORDS);
      }
    });
  }
});
