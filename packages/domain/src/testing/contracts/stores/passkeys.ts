import { beforeAll, describe, expect, it } from "vitest";
import type { Passkey } from "../../../model/webauthn.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { failsWith } from "../../fails-with.ts";
import { aPasskey, idsOf, type StoreContractHarness, t, uuid } from "./support.ts";

/** What a `PasskeyStore` must do: a user's passkeys, each credential id registered once. */
export function describePasskeysContract(harness: StoreContractHarness): void {
  describe("passkeys", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    const aStoredUser = async () => {
      const user = aUser();
      await stores.users.insert(user);
      return user;
    };

    it("round-trips every field of a passkey, and finds it for its user only", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      // A counter beyond 32 bits, so that the column is no int4.
      const used = aPasskey(user.id, {
        friendlyName: 'Zoë\'s "work" key 🔑',
        signCount: 5_000_000_123,
        transports: ["usb", "nfc", "ble"],
        attestationType: "packed",
        backupEligible: false,
        backedUp: false,
        createdAt: t("19:00:00.250"),
        updatedAt: t("19:01:30.999"),
        lastUsedAt: t("19:01:00.125"),
      });
      const bare = aPasskey(user.id, { friendlyName: null, transports: [], aaguid: null });
      for (const passkey of [used, bare]) await stores.passkeys.insert(passkey);

      expect(await stores.passkeys.find(user.id, used.id)).toEqual(used);
      expect(await stores.passkeys.find(user.id, bare.id)).toEqual(bare);
      expect(await stores.passkeys.find(other.id, used.id)).toBeNull();
      expect(await stores.passkeys.find(user.id, uuid())).toBeNull();
      expect(await stores.passkeys.find(user.id, "not-a-uuid")).toBeNull();
      expect(await stores.passkeys.find("not-a-uuid", used.id)).toBeNull();
    });

    it("lists and counts a user's passkeys, oldest first, ties broken by id", async () => {
      const [user, other, none] = [await aStoredUser(), await aStoredUser(), await aStoredUser()];
      const passkeys = [
        aPasskey(user.id, { createdAt: t("10:00:00.000") }),
        aPasskey(user.id, { createdAt: t("09:00:00.000") }),
        aPasskey(user.id, { createdAt: t("11:00:00.000") }),
        aPasskey(user.id, { createdAt: t("11:00:00.000") }),
      ];
      for (const passkey of [...passkeys, aPasskey(other.id)]) await stores.passkeys.insert(passkey);
      const oldestFirst = [...passkeys].sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );

      expect(await stores.passkeys.listOfUser(user.id)).toEqual(oldestFirst);
      expect(await stores.passkeys.countOfUser(user.id)).toBe(4);
      expect(await stores.passkeys.countOfUser(other.id)).toBe(1);
      expect(await stores.passkeys.listOfUser(none.id)).toEqual([]);
      expect(await stores.passkeys.countOfUser(none.id)).toBe(0);
      expect(await stores.passkeys.listOfUser("not-a-uuid")).toEqual([]);
      expect(await stores.passkeys.countOfUser("not-a-uuid")).toBe(0);
    });

    it("finds a passkey by its credential id, exactly as it was registered", async () => {
      const user = await aStoredUser();
      const [passkey, sibling] = [aPasskey(user.id), aPasskey(user.id)];
      for (const each of [passkey, sibling]) await stores.passkeys.insert(each);

      expect(await stores.passkeys.findByCredentialId(passkey.credentialId)).toEqual(passkey);
      expect(await stores.passkeys.findByCredentialId(sibling.credentialId)).toEqual(sibling);
      const locked = await tx.run((s) => s.passkeys.findByCredentialId(passkey.credentialId, { forUpdate: true }));
      expect(locked).toEqual(passkey);
      // Credential ids come from clients: anything that is not the registered id, byte for byte, finds nothing.
      const id = passkey.credentialId;
      // The same bytes spelled otherwise: the last character's unused low bits set.
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      const sameBytes = id.slice(0, -1) + alphabet[alphabet.indexOf(id.at(-1)!) + 1];
      const unknown = ["", "AAAA", `${id}A`, `${id}=`, `${id} `, id.toLowerCase(), id.slice(0, -1), sameBytes, "x!"];
      for (const credentialId of unknown.filter((each) => each !== id)) {
        expect(await stores.passkeys.findByCredentialId(credentialId)).toBeNull();
      }
    });

    it("writes what a sign-in changed on recordUse, and a name on rename, and nothing else", async () => {
      const user = await aStoredUser();
      const passkey = aPasskey(user.id, { signCount: 3, backedUp: false });
      await stores.passkeys.insert(passkey);
      const changedEverything = (overrides: Partial<Passkey>): Passkey => ({
        ...aPasskey(user.id, { id: passkey.id, createdAt: t("01:00:00.000") }),
        ...overrides,
      });

      const used = { signCount: 4, backedUp: true, lastUsedAt: t("19:05:00.500"), updatedAt: t("19:05:00.500") };
      await stores.passkeys.recordUse(changedEverything({ ...used, friendlyName: "Other" }));
      const afterUse = { ...passkey, ...used };
      expect(await stores.passkeys.find(user.id, passkey.id)).toEqual(afterUse);

      const renamed = { friendlyName: "Phone", updatedAt: t("19:06:00.750") };
      await stores.passkeys.rename(changedEverything({ ...renamed, signCount: 99 }));
      expect(await stores.passkeys.find(user.id, passkey.id)).toEqual({ ...afterUse, ...renamed });
      const unnamed = { ...afterUse, ...renamed, friendlyName: null };
      await stores.passkeys.rename(unnamed);
      expect(await stores.passkeys.find(user.id, passkey.id)).toEqual(unnamed);
    });

    it("deletes a passkey of its user, and says whether it did", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const [passkey, kept] = [aPasskey(user.id), aPasskey(user.id)];
      for (const each of [passkey, kept]) await stores.passkeys.insert(each);

      expect(await stores.passkeys.delete(other.id, passkey.id)).toBe(false);
      expect(await stores.passkeys.delete(user.id, uuid())).toBe(false);
      expect(await stores.passkeys.delete(user.id, "not-a-uuid")).toBe(false);
      expect(await stores.passkeys.delete("not-a-uuid", passkey.id)).toBe(false);
      expect(await stores.passkeys.find(user.id, passkey.id)).toEqual(passkey);

      expect(await stores.passkeys.delete(user.id, passkey.id)).toBe(true);
      expect(await stores.passkeys.delete(user.id, passkey.id)).toBe(false);
      expect(await stores.passkeys.findByCredentialId(passkey.credentialId)).toBeNull();
      expect(idsOf(await stores.passkeys.listOfUser(user.id))).toEqual([kept.id]);
    });

    it("refuses a credential id registered already, whoever's passkey it is", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const passkey = aPasskey(user.id);
      await stores.passkeys.insert(passkey);

      for (const again of [aPasskey(user.id), aPasskey(other.id)]) {
        const duplicate = { ...again, credentialId: passkey.credentialId };
        const error = await failsWith("webauthn_credential_exists", stores.passkeys.insert(duplicate));
        expect(error.message).toBe("This credential is already registered");
        expect(await stores.passkeys.find(again.userId, again.id)).toBeNull();
      }
      expect(await stores.passkeys.countOfUser(other.id)).toBe(0);
      expect(await stores.passkeys.findByCredentialId(passkey.credentialId)).toEqual(passkey);
    });

    it("lets one transaction at a time hold a passkey found for update, and shows the next one what the first wrote", async () => {
      const user = await aStoredUser();
      const passkey = aPasskey(user.id);
      await stores.passkeys.insert(passkey);
      let signalLocked!: () => void;
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));

      const first = tx.run(async (s) => {
        await s.passkeys.findByCredentialId(passkey.credentialId, { forUpdate: true });
        signalLocked();
        await released;
        await s.passkeys.recordUse({ ...passkey, signCount: 8 });
      });
      await locked;
      let secondDone = false;
      const second = tx.run(async (s) => {
        const found = await s.passkeys.findByCredentialId(passkey.credentialId, { forUpdate: true });
        secondDone = true;
        return found;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect((await second)?.signCount).toBe(8);
    });

    it("deletes a user's passkeys with the user, and frees their credential ids", async () => {
      const [user, other] = [await aStoredUser(), await aStoredUser()];
      const [passkey, theirs] = [aPasskey(user.id), aPasskey(other.id)];
      for (const each of [passkey, theirs]) await stores.passkeys.insert(each);

      expect(await stores.users.delete(user.id)).toBe(true);
      expect(await stores.passkeys.findByCredentialId(passkey.credentialId)).toBeNull();
      expect(await stores.passkeys.find(user.id, passkey.id)).toBeNull();
      expect(await stores.passkeys.listOfUser(other.id)).toEqual([theirs]);
      await stores.users.insert(user);
      expect(await stores.passkeys.countOfUser(user.id)).toBe(0);
      await stores.passkeys.insert(passkey);
      expect(await stores.passkeys.listOfUser(user.id)).toEqual([passkey]);
    });
  });
}
