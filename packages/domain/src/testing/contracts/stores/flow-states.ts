import { beforeAll, describe, expect, it } from "vitest";
import type { FlowState } from "../../../model/flow-state.ts";
import type { Stores } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { aFlowState, digest, type StoreContractHarness, t } from "./support.ts";

/** What a `FlowStateStore` must do: a PKCE flow is handed out once, by its code, with all it carries. */
export function describeFlowStatesContract(harness: StoreContractHarness): void {
  describe("flow states", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    it("hands a flow out once, by the digest of its code", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const flow = aFlowState(user.id, {
        codeChallenge: "b".repeat(43),
        codeChallengeMethod: "plain",
        createdAt: t("16:00:00.123"),
      });
      await stores.flowStates.insert(flow);
      expect(await stores.flowStates.consume(digest())).toBeNull();
      const consumed = await Promise.all([
        stores.flowStates.consume(flow.authCodeHash),
        stores.flowStates.consume(flow.authCodeHash),
      ]);
      expect(consumed.filter((found) => found !== null)).toEqual([flow]);
    });

    it("keeps the provider of an OAuth sign-in with its sealed tokens, or none", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const aFlow = (provider: FlowState["provider"]) =>
        aFlowState(user.id, { authenticationMethod: "oauth", provider, createdAt: t("16:30:00.789") });
      const flows = [
        aFlow({ name: "github", sealedAccessToken: "sealed-access", sealedRefreshToken: "sealed-refresh" }),
        aFlow({ name: "google", sealedAccessToken: "sealed-access-only", sealedRefreshToken: null }),
        aFlow(null),
      ];
      for (const flow of flows) await stores.flowStates.insert(flow);
      for (const flow of flows) expect(await stores.flowStates.consume(flow.authCodeHash)).toEqual(flow);
    });

    it("keeps a linking flow's identity, its profile as it came", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const profile = {
        subject: "gh-4242",
        claims: { iss: "https://github.example", sub: "gh-4242", name: "Zoë", custom_claims: { teams: ["a", "b"] } },
        emails: [
          { address: "zoe@example.com", verified: true, primary: true },
          { address: "Zoe@Work.Example", verified: false, primary: false },
        ],
      };
      const flow = aFlowState(user.id, {
        authenticationMethod: "oauth",
        provider: { name: "github", sealedAccessToken: "sealed-access", sealedRefreshToken: null },
        pendingLink: { provider: "github", profile },
        createdAt: t("16:40:00.001"),
      });
      await stores.flowStates.insert(flow);
      expect(await stores.flowStates.consume(flow.authCodeHash)).toEqual(flow);
    });
  });
}
