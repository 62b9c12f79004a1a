import { beforeAll, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports/stores.ts";
import { anSsoProvider, aSamlRelayState, type StoreContractHarness, t, uniqueTag, uuid } from "./support.ts";

/** What a `SamlRelayStateStore` must do: a relay state is taken once, and goes with its provider. */
export function describeSamlRelayStatesContract(harness: StoreContractHarness): void {
  describe("SAML relay states", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    /** A provider stored for the test, of its own EntityID and domain. */
    const aStoredProvider = async () => {
      const provider = anSsoProvider(uniqueTag());
      await stores.ssoProviders.insert(provider);
      return provider;
    };

    it("takes a relay state once, exactly as it was inserted", async () => {
      const provider = await aStoredProvider();
      const pkce = aSamlRelayState(provider.id, {
        requestId: `_${uuid()}`,
        redirectTo: "https://app.example.com/after?next=%2Fhome&x=1#frag",
        codeChallenge: "e".repeat(43),
        codeChallengeMethod: "s256",
        createdAt: t("17:30:00.456"),
      });
      const bare = aSamlRelayState(provider.id, { createdAt: t("17:30:01.001") });
      const plain = aSamlRelayState(provider.id, { codeChallenge: "f".repeat(43), codeChallengeMethod: "plain" });
      for (const state of [pkce, bare, plain]) await stores.samlRelayStates.insert(state);

      expect(await stores.samlRelayStates.take(uuid())).toBeNull();
      // RelayState comes back from the IdP as it pleases: what is no uuid names no state, and is no error.
      expect(await stores.samlRelayStates.take("not-a-uuid")).toBeNull();
      expect(await stores.samlRelayStates.take("")).toBeNull();
      for (const state of [pkce, bare, plain]) {
        expect(await stores.samlRelayStates.take(state.id)).toEqual(state);
        expect(await stores.samlRelayStates.take(state.id)).toBeNull();
      }
    });

    it("hands a relay state to one of two takes at once", async () => {
      const state = aSamlRelayState((await aStoredProvider()).id);
      await stores.samlRelayStates.insert(state);
      const taken = await Promise.all([stores.samlRelayStates.take(state.id), stores.samlRelayStates.take(state.id)]);
      expect(taken.filter((found) => found !== null)).toEqual([state]);
    });

    it("deletes a provider's relay states with it, and no other provider's", async () => {
      const [deleted, kept] = [await aStoredProvider(), await aStoredProvider()];
      const gone = [aSamlRelayState(deleted.id), aSamlRelayState(deleted.id)];
      const staying = aSamlRelayState(kept.id);
      for (const state of [...gone, staying]) await stores.samlRelayStates.insert(state);

      expect(await stores.ssoProviders.delete(deleted.id)).toBe(true);
      for (const state of gone) expect(await stores.samlRelayStates.take(state.id)).toBeNull();
      expect(await stores.samlRelayStates.take(staying.id)).toEqual(staying);
    });
  });
}
