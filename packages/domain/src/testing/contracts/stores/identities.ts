import { beforeAll, describe, expect, it } from "vitest";
import type { Identity } from "../../../model/identity.ts";
import type { Stores } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { failsWith } from "../../fails-with.ts";
import { anOtt, type StoreContractHarness, sortedById, t, uniqueTag, uuid } from "./support.ts";

/** An identity at an external provider, with a subject no other test uses. */
function aProviderIdentity(userId: string, overrides: Partial<Identity> = {}): Identity {
  const providerId = overrides.providerId ?? `subject-${uuid()}`;
  return {
    id: uuid(),
    userId,
    provider: "github",
    providerId,
    identityData: { sub: providerId, name: "Zoë", email_verified: true },
    lastSignInAt: t("12:30:00.250"),
    createdAt: t("12:00:00.000"),
    updatedAt: t("12:30:00.250"),
    ...overrides,
  };
}

/** What an `IdentityStore` must do: linking, finding by subject or email, and unlinking. */
export function describeIdentitiesContract(harness: StoreContractHarness): void {
  describe("identities", () => {
    let stores: Stores;
    beforeAll(() => {
      ({ stores } = harness());
    });

    it("updates the identity with the same provider and provider id instead of adding one", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const identity = user.identities[0]!;
      const updated = {
        ...identity,
        id: uuid(),
        identityData: { ...identity.identityData, email_verified: true },
        updatedAt: t("13:00:00.000"),
      };
      await stores.identities.save(updated);
      const found = await stores.users.findById(user.id);
      expect(found?.identities).toHaveLength(1);
      expect(found?.identities[0]).toEqual({ ...updated, id: identity.id });
    });

    it("deletes every identity of a user and of no one else, freeing their provider subjects", async () => {
      const user = aUser();
      const other = aUser();
      await stores.users.insert(user);
      await stores.users.insert(other);
      const phoneIdentity: Identity = {
        id: uuid(),
        userId: user.id,
        provider: "phone",
        providerId: user.id,
        identityData: { sub: user.id },
        lastSignInAt: null,
        createdAt: t("12:00:00.000"),
        updatedAt: t("12:00:00.000"),
      };
      await stores.identities.save(phoneIdentity);

      await stores.identities.deleteAllOfUser(user.id);
      expect((await stores.users.findById(user.id))?.identities).toEqual([]);
      expect(await stores.users.findById(other.id)).toEqual(other);
      const again = { ...phoneIdentity, id: uuid() };
      await stores.identities.save(again);
      expect((await stores.users.findById(user.id))?.identities).toEqual([again]);
    });

    it("finds an identity by its provider and subject, both matched exactly", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const github = aProviderIdentity(user.id);
      // The same subject at another provider, and another subject at the same provider.
      const gitlab = aProviderIdentity(other.id, { provider: "gitlab", providerId: github.providerId });
      const elsewhere = aProviderIdentity(other.id);
      for (const identity of [github, gitlab, elsewhere]) await stores.identities.save(identity);

      expect(await stores.identities.find("github", github.providerId)).toEqual(github);
      expect(await stores.identities.find("gitlab", github.providerId)).toEqual(gitlab);
      expect(await stores.identities.find("github", elsewhere.providerId)).toEqual(elsewhere);
      expect(await stores.identities.find("email", user.id)).toEqual(user.identities[0]);
      expect(await stores.identities.find("GitHub", github.providerId)).toBeNull();
      expect(await stores.identities.find("github", github.providerId.toUpperCase())).toBeNull();
      expect(await stores.identities.find("github", github.providerId.slice(0, -1))).toBeNull();
      expect(await stores.identities.find("bitbucket", github.providerId)).toBeNull();
      expect(await stores.identities.find("email", github.providerId)).toBeNull();
    });

    it("finds the identities of any provider and user whose data carries one of the emails, in any case", async () => {
      const tag = uniqueTag();
      const [first, second, third] = [
        aUser({ email: `first-${tag}@example.com` }),
        aUser({ email: null }),
        aUser({ email: `third-${tag}@example.com` }),
      ];
      for (const user of [first, second, third]) await stores.users.insert(user);
      const sameAddress = aProviderIdentity(first.id, {
        provider: "google",
        identityData: { sub: "g", email: `first-${tag}@example.com` },
      });
      const mixedCase = aProviderIdentity(second.id, {
        identityData: { sub: "m", email: `Second-${tag}@Example.COM` },
      });
      // Addresses anywhere but in `email` do not count, nor does an identity without one.
      const elsewhereInData = aProviderIdentity(second.id, {
        provider: "gitlab",
        identityData: { sub: "e", email: null, secondary_email: `second-${tag}@example.com` },
      });
      const withoutEmail = aProviderIdentity(third.id, { identityData: { sub: "w", phone: "+15550001234" } });
      for (const identity of [sameAddress, mixedCase, elsewhereInData, withoutEmail]) {
        await stores.identities.save(identity);
      }
      const byEmails = async (emails: readonly string[]) => sortedById(await stores.identities.findByEmails(emails));

      expect(await byEmails([`first-${tag}@example.com`, `second-${tag}@example.com`])).toEqual(
        sortedById([first.identities[0]!, sameAddress, mixedCase]),
      );
      expect(await byEmails([`third-${tag}@example.com`])).toEqual([third.identities[0]]);
      expect(await byEmails([`nobody-${tag}@example.com`])).toEqual([]);
      expect(await stores.identities.findByEmails([])).toEqual([]);
    });

    it("deletes one identity of its user, and nothing of another user's", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const github = aProviderIdentity(user.id);
      await stores.identities.save(github);

      expect(await stores.identities.delete(other.id, github.id)).toBe(false);
      expect(await stores.identities.delete(user.id, other.identities[0]!.id)).toBe(false);
      expect(await stores.identities.delete(user.id, uuid())).toBe(false);
      expect(await stores.identities.find("github", github.providerId)).toEqual(github);
      expect(await stores.users.findById(other.id)).toEqual(other);

      expect(await stores.identities.delete(user.id, github.id)).toBe(true);
      expect(await stores.identities.find("github", github.providerId)).toBeNull();
      expect((await stores.users.findById(user.id))?.identities).toEqual(user.identities);
      expect(await stores.identities.delete(user.id, github.id)).toBe(false);
    });

    it("lets a pending token that carried an identity carry none once the identity is deleted", async () => {
      const user = aUser({ emailConfirmedAt: null });
      await stores.users.insert(user);
      const [github, gitlab] = [aProviderIdentity(user.id), aProviderIdentity(user.id, { provider: "gitlab" })];
      for (const identity of [github, gitlab]) await stores.identities.save(identity);
      const confirmation = anOtt(user.id, { identityId: github.id });
      const recovery = anOtt(user.id, { kind: "recovery", identityId: gitlab.id });
      for (const token of [confirmation, recovery]) await stores.oneTimeTokens.replace(token);
      expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toEqual(confirmation);

      await stores.identities.delete(user.id, github.id);
      expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toEqual({
        ...confirmation,
        identityId: null,
      });
      expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual(recovery);
      await stores.identities.deleteAllOfUser(user.id);
      expect(await stores.oneTimeTokens.findByUser(user.id, "recovery")).toEqual({ ...recovery, identityId: null });
    });

    it("refuses an identity another user holds, and changes nothing", async () => {
      const [owner, other] = [aUser(), aUser()];
      await stores.users.insert(owner);
      await stores.users.insert(other);
      const github = aProviderIdentity(owner.id);
      await stores.identities.save(github);

      const taken = {
        ...github,
        id: uuid(),
        userId: other.id,
        identityData: { sub: github.providerId, stolen: true },
        updatedAt: t("13:00:00.000"),
      };
      await failsWith("identity_already_exists", stores.identities.save(taken));
      await failsWith("identity_already_exists", stores.identities.save({ ...owner.identities[0]!, userId: other.id }));
      expect(await stores.identities.find("github", github.providerId)).toEqual(github);
      expect((await stores.users.findById(owner.id))?.identities).toEqual([...owner.identities, github]);
      expect(await stores.users.findById(other.id)).toEqual(other);
    });
  });
}
