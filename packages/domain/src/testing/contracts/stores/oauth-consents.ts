import { beforeAll, describe, expect, it } from "vitest";
import type { User } from "../../../model/user.ts";
import type { Stores } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { anOAuthClient, anOAuthConsent, type StoreContractHarness, t, uuid } from "./support.ts";

/** What an `OAuthConsentStore` must do: one consent per user and client, the latest saved, revoked once. */
export function describeOAuthConsentsContract(harness: StoreContractHarness): void {
  describe("OAuth consents", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    const aStoredUser = async (): Promise<User> => {
      const user = aUser();
      await stores.users.insert(user);
      return user;
    };
    const aStoredClient = async () => {
      const client = anOAuthClient();
      await stores.oauthClients.insert(client);
      return client.id;
    };

    it("finds a saved consent exactly as it was saved, for its user and client only", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const [clientId, otherClientId] = [await aStoredClient(), await aStoredClient()];
      const consent = anOAuthConsent(user.id, clientId, {
        scopes: ["openid", "email", "profile", "offline_access"],
        grantedAt: t("21:01:00.125"),
      });
      const bare = anOAuthConsent(other.id, clientId, { scopes: [] });
      await stores.oauthConsents.save(consent);
      await stores.oauthConsents.save(bare);

      expect(await stores.oauthConsents.findActive(user.id, clientId)).toEqual(consent);
      expect(await stores.oauthConsents.findActive(other.id, clientId)).toEqual(bare);
      expect(await stores.oauthConsents.findActive(user.id, otherClientId)).toBeNull();
      expect(await stores.oauthConsents.listActive(user.id)).toEqual([consent]);
      for (const id of [uuid(), "not-a-uuid", ""]) {
        expect(await stores.oauthConsents.findActive(id, clientId)).toBeNull();
        expect(await stores.oauthConsents.findActive(user.id, id)).toBeNull();
        expect(await stores.oauthConsents.listActive(id)).toEqual([]);
        expect(await stores.oauthConsents.revoke(id, clientId, t("22:00:00.000"))).toBe(false);
        expect(await stores.oauthConsents.revoke(user.id, id, t("22:00:00.000"))).toBe(false);
      }
    });

    it("replaces the user's earlier consent to the client, revoked or not, keeping one", async () => {
      const user = await aStoredUser();
      const [clientId, otherClientId] = [await aStoredClient(), await aStoredClient()];
      const first = anOAuthConsent(user.id, clientId, { scopes: ["openid"], grantedAt: t("21:00:00.000") });
      const untouched = anOAuthConsent(user.id, otherClientId, { grantedAt: t("21:30:00.000") });
      await stores.oauthConsents.save(first);
      await stores.oauthConsents.save(untouched);

      const widened = anOAuthConsent(user.id, clientId, { scopes: ["openid", "phone"], grantedAt: t("21:05:00.000") });
      await stores.oauthConsents.save(widened);
      expect(await stores.oauthConsents.findActive(user.id, clientId)).toEqual(widened);
      expect(await stores.oauthConsents.listActive(user.id)).toEqual([widened, untouched]);

      expect(await stores.oauthConsents.revoke(user.id, clientId, t("21:10:00.000"))).toBe(true);
      const again = anOAuthConsent(user.id, clientId, { grantedAt: t("21:45:00.000") });
      await stores.oauthConsents.save(again);
      expect(await stores.oauthConsents.findActive(user.id, clientId)).toEqual(again);
      expect(await stores.oauthConsents.listActive(user.id)).toEqual([untouched, again]);
      // One consent to revoke: no earlier one is left behind to come back or to be revoked again.
      expect(await stores.oauthConsents.revoke(user.id, clientId, t("21:50:00.000"))).toBe(true);
      expect(await stores.oauthConsents.revoke(user.id, clientId, t("21:51:00.000"))).toBe(false);
      expect(await stores.oauthConsents.listActive(user.id)).toEqual([untouched]);
    });

    it("lists the user's active consents oldest grant first, leaving revoked ones out", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const grantedAt = async (time: string) => anOAuthConsent(user.id, await aStoredClient(), { grantedAt: t(time) });
      const [newest, oldest, revoked, middle] = [
        await grantedAt("23:00:00.000"),
        await grantedAt("08:00:00.000"),
        await grantedAt("09:00:00.000"),
        await grantedAt("12:00:00.500"),
      ];
      // Written in no order the list has, and another user's consent besides.
      for (const consent of [newest, oldest, revoked, middle, anOAuthConsent(other.id, newest.clientId)]) {
        await stores.oauthConsents.save(consent);
      }
      expect(await stores.oauthConsents.revoke(user.id, revoked.clientId, t("22:00:00.000"))).toBe(true);

      expect(await stores.oauthConsents.listActive(user.id)).toEqual([oldest, middle, newest]);
    });

    it("revokes an active consent once, at the time given, and no other", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const [clientId, otherClientId] = [await aStoredClient(), await aStoredClient()];
      const consent = anOAuthConsent(user.id, clientId);
      const kept = [anOAuthConsent(user.id, otherClientId), anOAuthConsent(other.id, clientId)];
      for (const each of [consent, ...kept]) await stores.oauthConsents.save(each);

      expect(await stores.oauthConsents.revoke(user.id, clientId, t("22:00:00.000"))).toBe(true);
      expect(await stores.oauthConsents.findActive(user.id, clientId)).toBeNull();
      expect(await stores.oauthConsents.revoke(user.id, clientId, t("22:01:00.000"))).toBe(false);
      expect(await stores.oauthConsents.findActive(user.id, otherClientId)).toEqual(kept[0]);
      expect(await stores.oauthConsents.findActive(other.id, clientId)).toEqual(kept[1]);
    });

    it("deletes a user's consents with the user", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const clientId = await aStoredClient();
      const [mine, theirs] = [anOAuthConsent(user.id, clientId), anOAuthConsent(other.id, clientId)];
      for (const consent of [mine, theirs]) await stores.oauthConsents.save(consent);

      expect(await stores.users.delete(user.id)).toBe(true);
      await stores.users.insert(user);
      expect(await stores.oauthConsents.findActive(user.id, clientId)).toBeNull();
      expect(await stores.oauthConsents.listActive(user.id)).toEqual([]);
      expect(await stores.oauthConsents.findActive(other.id, clientId)).toEqual(theirs);
    });
  });
}
