import { beforeAll, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { anOtt, digest, type StoreContractHarness, t, uuid } from "./support.ts";

/** What a `OneTimeTokenStore` must do: one pending token per user and kind, found by user, link or address. */
export function describeOneTimeTokensContract(harness: StoreContractHarness): void {
  describe("one-time tokens", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    it("keeps one pending token per user and kind", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const first = anOtt(user.id);
      const second = anOtt(user.id, { linkTokenHash: null, failedAttempts: 2, createdAt: t("10:05:00.000") });
      const recovery = anOtt(user.id, { kind: "recovery" });
      await stores.oneTimeTokens.replace(first);
      await stores.oneTimeTokens.replace(recovery);
      await stores.oneTimeTokens.replace(second);
      expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toEqual(second);
      expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual(recovery);
      expect(await stores.oneTimeTokens.findByUser(user.id, "reauthentication")).toBeNull();

      await stores.oneTimeTokens.deleteAllOfUser(user.id);
      expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toBeNull();
      expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toBeNull();
    });

    it("finds a token by the digest of its link, keeping its PKCE challenge and chosen password", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const token = anOtt(user.id, {
        kind: "magic_link",
        codeChallenge: "a".repeat(43),
        codeChallengeMethod: "s256",
        passwordHash: "$argon2id$chosen",
        userMetadata: { name: "Zoë", nested: { tags: ["a"] } },
      });
      await stores.oneTimeTokens.replace(token);
      expect(await stores.oneTimeTokens.findByLinkTokenHash(token.linkTokenHash!)).toEqual(token);
      expect(await stores.oneTimeTokens.findByLinkTokenHash(digest())).toBeNull();
    });

    it("finds the pending tokens of some kinds sent to an address, for every user it is pending for", async () => {
      const [first, second] = [aUser(), aUser()];
      await stores.users.insert(first);
      await stores.users.insert(second);
      const address = `shared-${uuid().slice(0, 8)}@example.com`;
      const ofFirst = anOtt(first.id, { kind: "email_change_new", relatesTo: address });
      const ofSecond = anOtt(second.id, { kind: "email_change_new", relatesTo: address });
      const otherKind = anOtt(first.id, { kind: "recovery", relatesTo: address });
      for (const token of [ofFirst, ofSecond, otherKind]) await stores.oneTimeTokens.replace(token);
      const found = await stores.oneTimeTokens.findByAddress(address, ["email_change_new", "email_change_current"]);
      expect(found.map((token) => token.id).sort()).toEqual([ofFirst.id, ofSecond.id].sort());
      expect(await stores.oneTimeTokens.findByAddress("nobody@example.com", ["recovery"])).toEqual([]);
    });

    it("spends a token's code attempts up to a maximum, and deletes one token alone", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const kept = anOtt(user.id, { kind: "recovery" });
      const guessed = anOtt(user.id, { kind: "confirmation" });
      await stores.oneTimeTokens.replace(kept);
      await stores.oneTimeTokens.replace(guessed);
      expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 2)).toBe(true);
      expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 2)).toBe(true);
      expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 2)).toBe(false);
      expect((await stores.oneTimeTokens.findByUser(user.id, "confirmation"))?.failedAttempts).toBe(2);
      expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 3)).toBe(true);
      expect(
        await Promise.all([stores.oneTimeTokens.delete(guessed.id), stores.oneTimeTokens.delete(guessed.id)]),
      ).toEqual(expect.arrayContaining([true, false]));
      expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toBeNull();
      expect(await stores.oneTimeTokens.takeCodeAttempt(guessed.id, 5)).toBe(false);
      expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual(kept);
    });
  });
}
