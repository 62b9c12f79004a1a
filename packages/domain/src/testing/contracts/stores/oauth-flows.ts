import { beforeAll, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { anOAuthFlow, digest, type StoreContractHarness, t, uuid } from "./support.ts";

/** What an `OAuthFlowStore` must do: a state is taken once, and abandoned flows do not pile up. */
export function describeOAuthFlowsContract(harness: StoreContractHarness): void {
  describe("oauth flows", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    it("takes a flow once, exactly as it was inserted", async () => {
      const [linking, invited] = [aUser(), aUser()];
      await stores.users.insert(linking);
      await stores.users.insert(invited);
      const full = anOAuthFlow({
        provider: "gitlab",
        redirectTo: "https://app.example.com/after?next=%2Fhome&x=1#frag",
        codeChallenge: "e".repeat(43),
        codeChallengeMethod: "s256",
        inviteUserId: invited.id,
        linkingTargetId: linking.id,
        sealedSecret: `sealed-${uuid()}`,
        browserBindingHash: digest(),
        createdAt: t("17:00:00.456"),
      });
      const bare = anOAuthFlow({ createdAt: t("17:00:01.001") });
      const plain = anOAuthFlow({ codeChallenge: "f".repeat(43), codeChallengeMethod: "plain" });
      for (const flow of [full, bare, plain]) await stores.oauthFlows.insert(flow);

      expect(await stores.oauthFlows.take(uuid())).toBeNull();
      for (const flow of [full, bare, plain]) {
        expect(await stores.oauthFlows.take(flow.id)).toEqual(flow);
        expect(await stores.oauthFlows.take(flow.id)).toBeNull();
      }
    });

    it("hands a flow to one of two takes at once", async () => {
      const flow = anOAuthFlow({ sealedSecret: "sealed-verifier" });
      await stores.oauthFlows.insert(flow);
      const taken = await Promise.all([stores.oauthFlows.take(flow.id), stores.oauthFlows.take(flow.id)]);
      expect(taken.filter((found) => found !== null)).toEqual([flow]);
    });

    it("deletes the flows linking to or inviting a user with that user, and no other", async () => {
      const [linking, invited, bystander] = [aUser(), aUser(), aUser()];
      for (const user of [linking, invited, bystander]) await stores.users.insert(user);
      const linkingFlow = anOAuthFlow({ linkingTargetId: linking.id });
      const invitingFlow = anOAuthFlow({ inviteUserId: invited.id });
      const bothFlow = anOAuthFlow({ linkingTargetId: bystander.id, inviteUserId: invited.id });
      const bystandersFlow = anOAuthFlow({ linkingTargetId: bystander.id });
      const nobodysFlow = anOAuthFlow();
      const flows = [linkingFlow, invitingFlow, bothFlow, bystandersFlow, nobodysFlow];
      for (const flow of flows) await stores.oauthFlows.insert(flow);

      expect(await stores.users.delete(linking.id)).toBe(true);
      expect(await stores.users.delete(invited.id)).toBe(true);
      expect(await stores.oauthFlows.take(linkingFlow.id)).toBeNull();
      expect(await stores.oauthFlows.take(invitingFlow.id)).toBeNull();
      expect(await stores.oauthFlows.take(bothFlow.id)).toBeNull();
      expect(await stores.oauthFlows.take(bystandersFlow.id)).toEqual(bystandersFlow);
      expect(await stores.oauthFlows.take(nobodysFlow.id)).toEqual(nobodysFlow);
    });

    it("removes, as it inserts a flow, the flows begun more than a day before that one", async () => {
      // Years from the other tests' times, and from now: a day is counted back from the new flow, not the clock.
      const inserted = new Date("2032-06-01T12:00:00.000Z");
      const before = (ms: number) => new Date(inserted.getTime() - ms);
      const day = 24 * 60 * 60 * 1000;
      const abandoned = anOAuthFlow({ createdAt: before(day + 1) });
      const aDayOld = anOAuthFlow({ createdAt: before(day) });
      const recent = anOAuthFlow({ createdAt: before(60 * 60 * 1000) });
      const later = anOAuthFlow({ createdAt: new Date(inserted.getTime() + 60 * 1000) });
      // Newest first, so that no insert here removes a flow inserted before it.
      for (const flow of [later, recent, aDayOld, abandoned]) await stores.oauthFlows.insert(flow);
      expect(await stores.oauthFlows.take(abandoned.id)).toEqual(abandoned);
      await stores.oauthFlows.insert(abandoned);

      const fresh = anOAuthFlow({ createdAt: inserted });
      await stores.oauthFlows.insert(fresh);
      expect(await stores.oauthFlows.take(abandoned.id)).toBeNull();
      for (const kept of [aDayOld, recent, later, fresh]) expect(await stores.oauthFlows.take(kept.id)).toEqual(kept);
    });
  });
}
