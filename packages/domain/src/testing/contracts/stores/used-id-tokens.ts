import { beforeAll, describe, expect, it } from "vitest";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { digest, type StoreContractHarness, t } from "./support.ts";

/** What a `UsedIdTokenStore` must do: an id_token is used once until it expires, even by two at once. */
export function describeUsedIdTokensContract(harness: StoreContractHarness): void {
  describe("used id_tokens", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    it("remembers a digest until it expires, refusing it meanwhile, and forgets the expired ones", async () => {
      const [first, second] = [digest(), digest()];
      expect(await stores.usedIdTokens.remember(first, t("11:00:00.000"), t("10:00:00.000"))).toBe(true);
      expect(await stores.usedIdTokens.remember(first, t("11:00:00.000"), t("10:30:00.000"))).toBe(false);
      expect(await stores.usedIdTokens.remember(second, t("10:45:00.000"), t("10:30:00.000"))).toBe(true);
      // Once expired, a digest is forgotten: remembering it again (it could not verify by then) is no replay.
      expect(await stores.usedIdTokens.remember(first, t("13:00:00.000"), t("11:00:00.001"))).toBe(true);
      expect(await stores.usedIdTokens.remember(second, t("13:00:00.000"), t("11:00:00.002"))).toBe(true);
    });

    it("gives one of two concurrent transactions the digest", async () => {
      const one = digest();
      const remember = () => tx.run((s) => s.usedIdTokens.remember(one, t("11:00:00.000"), t("10:00:00.000")));
      expect((await Promise.all([remember(), remember()])).sort()).toEqual([false, true]);
    });
  });
}
