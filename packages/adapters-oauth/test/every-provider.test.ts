import { OAUTH_PROVIDER_NAMES, OAuthProviderFailure } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../src/providers/index.ts";
import { closeStandIns, providerAt, startStandIn } from "./support/stand-in.ts";

afterEach(closeStandIns);

// What every provider owes the domain, whatever its protocol: checked on all of them at once, so a new one
// cannot forget it. Each provider's own file checks its requests and mappings against its stand-in.

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
  it("is registered under each name the domain knows, and only those", () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual([...OAUTH_PROVIDER_NAMES].sort());
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
