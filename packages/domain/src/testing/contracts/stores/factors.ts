import { beforeAll, describe, expect, it } from "vitest";
import type { Factor, MfaChallenge } from "../../../model/factor.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aSession, aUser } from "../../builders.ts";
import { failsWith } from "../../fails-with.ts";
import {
  aFactor,
  aWebAuthnKey,
  digest,
  idsOf,
  type StoreContractHarness,
  sortedById,
  storeSession,
  t,
  uuid,
} from "./support.ts";

/** An unverified phone factor, of a number no other test uses. */
function aPhoneFactor(userId: string, overrides: Partial<Factor> = {}): Factor {
  const phone = `+1555${Math.floor(Math.random() * 1e7)}`;
  return aFactor(userId, { type: "phone", sealedSecret: null, phone, ...overrides });
}

/** An unverified WebAuthn factor: its credential comes with its first verification. */
function aWebAuthnFactor(userId: string, overrides: Partial<Factor> = {}): Factor {
  return aFactor(userId, { type: "webauthn", sealedSecret: null, ...overrides });
}

function aChallenge(factorId: string, overrides: Partial<MfaChallenge> = {}): MfaChallenge {
  return {
    id: uuid(),
    factorId,
    ip: "203.0.113.7",
    codeDigest: null,
    webauthn: null,
    createdAt: t("18:05:00.000"),
    verifiedAt: null,
    ...overrides,
  };
}

/** What a `FactorStore` must do, for factors and their challenges. */
export function describeFactorsContract(harness: StoreContractHarness): void {
  describe("factors", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    /** The user's factors as its reads carry them, oldest first. */
    const factorsOf = async (userId: string) => (await stores.users.findById(userId))?.factors ?? [];
    /** In id order: which factors there are, whatever their order. */
    const factorIdsOf = async (userId: string) => idsOf(sortedById(await factorsOf(userId)));

    it("round-trips every field of a factor, and finds it for its user only", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      // A time step beyond 32 bits, so that the column is no int4.
      const totp = aFactor(user.id, {
        friendlyName: 'Zoë\'s "work" phone 📱',
        status: "verified",
        lastTotpStep: 5_000_000_123,
        lastChallengedAt: t("18:01:00.125"),
        createdAt: t("18:00:00.250"),
        updatedAt: t("18:01:30.999"),
      });
      const phone = aPhoneFactor(user.id);
      for (const factor of [totp, phone]) await stores.factors.insert(factor);

      expect(await stores.factors.find(user.id, totp.id)).toEqual(totp);
      expect(await stores.factors.find(user.id, phone.id)).toEqual(phone);
      expect(await tx.run((s) => s.factors.find(user.id, totp.id, { forUpdate: true }))).toEqual(totp);
      expect(await stores.factors.find(other.id, totp.id)).toBeNull();
      expect(await tx.run((s) => s.factors.find(other.id, totp.id, { forUpdate: true }))).toBeNull();
      expect(await stores.factors.find(user.id, uuid())).toBeNull();
      expect(await stores.factors.find(user.id, "not-a-uuid")).toBeNull();
      expect(await stores.factors.find("not-a-uuid", totp.id)).toBeNull();
    });

    it("writes a factor's mutable fields on update, and keeps its type, secret and creation as inserted", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const factor = aPhoneFactor(user.id, { sealedSecret: "sealed-at-enrollment" });
      await stores.factors.insert(factor);
      const updated: Factor = {
        ...factor,
        status: "verified",
        friendlyName: "Renamed",
        phone: `+4470${Math.floor(Math.random() * 1e8)}`,
        lastTotpStep: 59_000_001,
        lastChallengedAt: t("18:10:00.500"),
        updatedAt: t("18:11:00.750"),
      };
      await stores.factors.update({ ...updated, type: "totp", sealedSecret: "other", createdAt: t("01:00:00.000") });
      expect(await stores.factors.find(user.id, factor.id)).toEqual(updated);

      const cleared: Factor = { ...updated, friendlyName: null, lastChallengedAt: null, lastTotpStep: null };
      await stores.factors.update(cleared);
      expect(await stores.factors.find(user.id, factor.id)).toEqual(cleared);
    });

    it("round-trips a WebAuthn factor's credential through update, its reads and its user's, and its challenges' expectations", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const factor = aWebAuthnFactor(user.id, { friendlyName: "Security key" });
      await stores.factors.insert(factor);
      const create = aChallenge(factor.id, {
        webauthn: { type: "create", challenge: digest(), userVerification: "required" },
      });
      const request = aChallenge(factor.id, {
        webauthn: { type: "request", challenge: digest(), userVerification: "discouraged" },
      });
      for (const challenge of [create, request]) await stores.factors.insertChallenge(challenge);
      expect(await tx.run((s) => s.factors.lockChallenge(factor.id, create.id))).toEqual(create);
      expect(await tx.run((s) => s.factors.lockChallenge(factor.id, request.id))).toEqual(request);
      expect(await stores.factors.find(user.id, factor.id)).toEqual(factor);

      // A counter beyond 32 bits, no aaguid, no transports: every value as it was.
      const webauthn = aWebAuthnKey({ signCount: 5_000_000_123, aaguid: null, transports: [], backedUp: false });
      const verified: Factor = { ...factor, status: "verified", webauthn, updatedAt: t("18:02:00.250") };
      await stores.factors.update(verified);
      expect(await stores.factors.find(user.id, factor.id)).toEqual(verified);
      expect(await tx.run((s) => s.factors.find(user.id, factor.id, { forUpdate: true }))).toEqual(verified);
      expect(await factorsOf(user.id)).toEqual([verified]);

      const used: Factor = { ...verified, webauthn: { ...webauthn, signCount: 5_000_000_124, backedUp: true } };
      await stores.factors.update(used);
      expect(await factorsOf(user.id)).toEqual([used]);
      const listed = await stores.users.list({ page: 1, perPage: 10, order: "asc", email: user.email! });
      expect(listed.users).toEqual([{ ...user, factors: [used] }]);
    });

    it("refuses a WebAuthn factor a credential another factor has, whoever's it is", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const webauthn = aWebAuthnKey();
      const first = aWebAuthnFactor(user.id, { status: "verified", webauthn });
      const [mine, theirs] = [aWebAuthnFactor(user.id), aWebAuthnFactor(other.id)];
      for (const factor of [first, mine, theirs]) await stores.factors.insert(factor);

      for (const factor of [mine, theirs]) {
        const claiming = {
          ...factor,
          status: "verified" as const,
          webauthn: { ...aWebAuthnKey(), credentialId: webauthn.credentialId },
        };
        const error = await failsWith("webauthn_credential_exists", stores.factors.update(claiming));
        expect(error.message).toBe("This credential is already registered");
        expect(await stores.factors.find(factor.userId, factor.id)).toEqual(factor);
      }
      const inserted = aWebAuthnFactor(other.id, { status: "verified", webauthn });
      await failsWith("webauthn_credential_exists", stores.factors.insert(inserted));
      expect(await stores.factors.find(other.id, inserted.id)).toBeNull();

      // Updating the factor that holds the credential is no conflict; once it is gone, the credential is free.
      await stores.factors.update({ ...first, webauthn: { ...webauthn, signCount: 1 } });
      expect(await stores.factors.delete(user.id, first.id)).toBe(true);
      await stores.factors.update({ ...theirs, status: "verified", webauthn });
      expect((await stores.factors.find(other.id, theirs.id))?.webauthn).toEqual(webauthn);
    });

    it("refuses a user a second factor of a friendly name, trimmed, and allows unnamed factors and other users'", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const laptop = aFactor(user.id, { friendlyName: "Laptop" });
      await stores.factors.insert(laptop);

      const same = aFactor(user.id, { friendlyName: "Laptop" });
      const error = await failsWith("mfa_factor_name_conflict", stores.factors.insert(same));
      expect(error.message).toBe('A factor with the friendly name "Laptop" for this user already exists');
      const padded = aPhoneFactor(user.id, { friendlyName: "  Laptop  " });
      await failsWith("mfa_factor_name_conflict", stores.factors.insert(padded));
      expect(await factorIdsOf(user.id)).toEqual([laptop.id]);

      // Names compare as they are, but for the spaces around them; no name, or an empty one, is no name.
      const allowed = [
        aFactor(user.id, { friendlyName: "laptop" }),
        aFactor(user.id, { friendlyName: "Laptop 2" }),
        aFactor(user.id, { friendlyName: null }),
        aFactor(user.id, { friendlyName: null }),
        aFactor(user.id, { friendlyName: "" }),
        aFactor(user.id, { friendlyName: "   " }),
      ];
      for (const factor of allowed) await stores.factors.insert(factor);
      const othersLaptop = aFactor(other.id, { friendlyName: "Laptop" });
      await stores.factors.insert(othersLaptop);
      expect(await factorIdsOf(user.id)).toEqual(idsOf(sortedById([laptop, ...allowed])));
      expect(await factorIdsOf(other.id)).toEqual([othersLaptop.id]);

      // Renaming to a name taken is refused too, and changes nothing.
      const renamed = allowed[2]!;
      await failsWith("mfa_factor_name_conflict", stores.factors.update({ ...renamed, friendlyName: " Laptop" }));
      expect(await stores.factors.find(user.id, renamed.id)).toEqual(renamed);
    });

    it("refuses a user a second verified factor of a phone number, and allows unverified ones and other users'", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const verified = aPhoneFactor(user.id, { status: "verified" });
      await stores.factors.insert(verified);

      const again = aPhoneFactor(user.id, { phone: verified.phone, status: "verified" });
      const error = await failsWith("mfa_verified_factor_exists", stores.factors.insert(again));
      expect(error.message).toBe("A verified phone factor already exists, unenroll the existing factor to continue");
      expect(await stores.factors.find(user.id, again.id)).toBeNull();

      // Enrolling the number again is allowed; verifying that enrollment is not, while the other is verified.
      const pending = aPhoneFactor(user.id, { phone: verified.phone });
      const anotherNumber = aPhoneFactor(user.id, { status: "verified" });
      const othersVerified = aPhoneFactor(other.id, { phone: verified.phone, status: "verified" });
      for (const factor of [pending, anotherNumber, othersVerified]) await stores.factors.insert(factor);
      await failsWith("mfa_verified_factor_exists", stores.factors.update({ ...pending, status: "verified" }));
      expect(await stores.factors.find(user.id, pending.id)).toEqual(pending);
      expect(await factorIdsOf(user.id)).toEqual(idsOf(sortedById([verified, pending, anotherNumber])));

      // Once the verified one is gone, the number is free to verify.
      expect(await stores.factors.delete(user.id, verified.id)).toBe(true);
      await stores.factors.update({ ...pending, status: "verified" });
      expect((await stores.factors.find(user.id, pending.id))?.status).toBe("verified");
    });

    it("deletes a factor of its user with its challenges, and says whether it did", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const [factor, kept] = [aFactor(user.id), aFactor(user.id)];
      for (const each of [factor, kept]) await stores.factors.insert(each);
      const challenge = aChallenge(factor.id);
      const keptChallenge = aChallenge(kept.id);
      for (const each of [challenge, keptChallenge]) await stores.factors.insertChallenge(each);

      expect(await stores.factors.delete(other.id, factor.id)).toBe(false);
      expect(await stores.factors.delete(user.id, uuid())).toBe(false);
      expect(await stores.factors.delete(user.id, "not-a-uuid")).toBe(false);
      expect(await stores.factors.find(user.id, factor.id)).toEqual(factor);

      expect(await stores.factors.delete(user.id, factor.id)).toBe(true);
      expect(await stores.factors.find(user.id, factor.id)).toBeNull();
      expect(await tx.run((s) => s.factors.lockChallenge(factor.id, challenge.id))).toBeNull();
      expect(await stores.factors.delete(user.id, factor.id)).toBe(false);
      expect(await factorIdsOf(user.id)).toEqual([kept.id]);
      expect(await tx.run((s) => s.factors.lockChallenge(kept.id, keptChallenge.id))).toEqual(keptChallenge);
    });

    it("deletes every factor of a user with their challenges, and no other user's", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const [totp, phone, theirs] = [
        aFactor(user.id, { status: "verified" }),
        aPhoneFactor(user.id),
        aFactor(other.id),
      ];
      for (const each of [totp, phone, theirs]) await stores.factors.insert(each);
      const [challenge, theirChallenge] = [aChallenge(totp.id), aChallenge(theirs.id)];
      for (const each of [challenge, theirChallenge]) await stores.factors.insertChallenge(each);

      await stores.factors.deleteAllOfUser(user.id);
      expect(await factorIdsOf(user.id)).toEqual([]);
      expect(await tx.run((s) => s.factors.lockChallenge(totp.id, challenge.id))).toBeNull();
      expect(await factorIdsOf(other.id)).toEqual([theirs.id]);
      expect(await tx.run((s) => s.factors.lockChallenge(theirs.id, theirChallenge.id))).toEqual(theirChallenge);
      await stores.factors.deleteAllOfUser("not-a-uuid");
    });

    it("deletes the unverified factors of a user that match every condition given, and never a verified one", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const number = `+3375${Math.floor(Math.random() * 1e7)}`;
      const idleTotp = aFactor(user.id, { createdAt: t("10:00:00.000") });
      // Created long ago, but challenged since: idle from its last challenge.
      const challengedTotp = aFactor(user.id, {
        createdAt: t("09:00:00.000"),
        lastChallengedAt: t("12:00:00.000"),
      });
      const phoneOfNumber = aPhoneFactor(user.id, { phone: number, createdAt: t("10:00:00.000") });
      const otherPhone = aPhoneFactor(user.id, { createdAt: t("13:00:00.000") });
      const verifiedTotp = aFactor(user.id, { status: "verified", createdAt: t("08:00:00.000") });
      const verifiedPhone = aPhoneFactor(user.id, {
        phone: number,
        status: "verified",
        createdAt: t("08:00:00.000"),
      });
      const othersFactor = aPhoneFactor(other.id, { phone: number, createdAt: t("08:00:00.000") });
      const verifiedOnes = [verifiedTotp, verifiedPhone];
      for (const factor of [idleTotp, challengedTotp, phoneOfNumber, otherPhone, ...verifiedOnes, othersFactor]) {
        await stores.factors.insert(factor);
      }
      const left = (...factors: Factor[]) => idsOf(sortedById([...factors, ...verifiedOnes]));

      await stores.factors.deleteUnverified(user.id, { type: "totp", phone: number });
      await stores.factors.deleteUnverified(user.id, { type: "phone", phone: "+15550000000" });
      expect(await factorIdsOf(user.id)).toEqual(left(idleTotp, challengedTotp, phoneOfNumber, otherPhone));
      await stores.factors.deleteUnverified(user.id, { type: "phone", phone: number });
      expect(await factorIdsOf(user.id)).toEqual(left(idleTotp, challengedTotp, otherPhone));

      // Idle since before the instant: last challenged, or else created, strictly before it.
      await stores.factors.deleteUnverified(user.id, { idleBefore: t("10:00:00.000") });
      expect(await factorIdsOf(user.id)).toEqual(left(idleTotp, challengedTotp, otherPhone));
      await stores.factors.deleteUnverified(user.id, { idleBefore: t("12:00:00.000") });
      expect(await factorIdsOf(user.id)).toEqual(left(challengedTotp, otherPhone));
      await stores.factors.deleteUnverified(user.id, { type: "phone", idleBefore: t("12:00:00.001") });
      expect(await factorIdsOf(user.id)).toEqual(left(challengedTotp, otherPhone));

      const newer = aFactor(user.id, { createdAt: t("14:00:00.000") });
      await stores.factors.insert(newer);
      await stores.factors.deleteUnverified(user.id, { type: "totp", except: challengedTotp.id });
      expect(await factorIdsOf(user.id)).toEqual(left(challengedTotp, otherPhone));
      await stores.factors.deleteUnverified(user.id, { idleBefore: t("23:00:00.000"), except: otherPhone.id });
      expect(await factorIdsOf(user.id)).toEqual(left(otherPhone));
      await stores.factors.deleteUnverified(user.id, {});
      expect(await factorIdsOf(user.id)).toEqual(left());
      expect(await factorIdsOf(other.id)).toEqual([othersFactor.id]);
    });

    it("keeps a factor's challenges, hands one out by its factor's id only, and records its verification", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const [factor, sibling] = [aPhoneFactor(user.id), aFactor(user.id)];
      for (const each of [factor, sibling]) await stores.factors.insert(each);
      const texted = aChallenge(factor.id, { ip: "2001:db8::7", codeDigest: digest(), createdAt: t("18:05:00.125") });
      const bare = aChallenge(factor.id, { ip: null });
      for (const each of [texted, bare]) await stores.factors.insertChallenge(each);
      const lock = (factorId: string, challengeId: string) =>
        tx.run((s) => s.factors.lockChallenge(factorId, challengeId));

      expect(await lock(factor.id, texted.id)).toEqual(texted);
      expect(await lock(factor.id, bare.id)).toEqual(bare);
      expect(await lock(sibling.id, texted.id)).toBeNull();
      expect(await lock(factor.id, uuid())).toBeNull();
      expect(await lock(factor.id, "not-a-uuid")).toBeNull();

      await stores.factors.markChallengeVerified(texted.id, t("18:06:00.500"));
      expect(await lock(factor.id, texted.id)).toEqual({ ...texted, verifiedAt: t("18:06:00.500") });
      await stores.factors.deleteChallenge(texted.id);
      expect(await lock(factor.id, texted.id)).toBeNull();
      expect(await lock(factor.id, bare.id)).toEqual(bare);
    });

    it("lets one transaction at a time hold a challenge, and shows the next one what the first wrote", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const factor = aFactor(user.id);
      await stores.factors.insert(factor);
      const challenge = aChallenge(factor.id);
      await stores.factors.insertChallenge(challenge);
      let signalLocked!: () => void;
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));

      const first = tx.run(async (s) => {
        await s.factors.lockChallenge(factor.id, challenge.id);
        signalLocked();
        await released;
        await s.factors.markChallengeVerified(challenge.id, t("18:07:00.000"));
      });
      await locked;
      let secondDone = false;
      const second = tx.run(async (s) => {
        const found = await s.factors.lockChallenge(factor.id, challenge.id);
        secondDone = true;
        return found;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect((await second)?.verifiedAt).toEqual(t("18:07:00.000"));
    });

    it("lets one transaction at a time hold a factor it found for update, and shows the next one what the first wrote", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const factor = aFactor(user.id);
      await stores.factors.insert(factor);
      let signalLocked!: () => void;
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));

      const first = tx.run(async (s) => {
        await s.factors.find(user.id, factor.id, { forUpdate: true });
        signalLocked();
        await released;
        await s.factors.update({ ...factor, lastTotpStep: 7 });
      });
      await locked;
      let secondDone = false;
      const second = tx.run(async (s) => {
        const found = await s.factors.find(user.id, factor.id, { forUpdate: true });
        secondDone = true;
        return found;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect((await second)?.lastTotpStep).toBe(7);
    });

    it("reads users with their factors, oldest first, ties broken by id", async () => {
      const phone = `+4916${Math.floor(Math.random() * 1e8)}`;
      const [user, other] = [aUser({ phone }), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const factors = [
        aFactor(user.id, { friendlyName: "second", createdAt: t("10:00:00.000") }),
        aPhoneFactor(user.id, { status: "verified", createdAt: t("09:00:00.000") }),
        aFactor(user.id, { friendlyName: "tie a", createdAt: t("11:00:00.000") }),
        aFactor(user.id, { friendlyName: "tie b", createdAt: t("11:00:00.000") }),
      ];
      for (const factor of [...factors, aFactor(other.id)]) await stores.factors.insert(factor);
      const oldestFirst = [...factors].sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
      const withFactors = { ...user, factors: oldestFirst };
      const session = aSession(user.id);
      const token = await storeSession(stores, session);

      expect(await stores.users.findById(user.id)).toEqual(withFactors);
      expect(await tx.run((s) => s.users.findById(user.id, { forUpdate: true }))).toEqual(withFactors);
      expect(await stores.users.findByEmail(user.email!)).toEqual(withFactors);
      expect(await stores.users.findByPhone(phone)).toEqual(withFactors);
      expect((await stores.users.findWithSession(user.id, session.id))?.user).toEqual(withFactors);
      expect((await stores.refreshTokens.findForRefresh(token.tokenHash))?.user).toEqual(withFactors);
      expect((await tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash)))?.user).toEqual(withFactors);
      const listed = await stores.users.list({ page: 1, perPage: 10, order: "asc", phone });
      expect(listed.users).toEqual([withFactors]);
    });

    it("deletes a user's factors and their challenges with the user", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const factor = aPhoneFactor(user.id, { status: "verified" });
      await stores.factors.insert(factor);
      const challenge = aChallenge(factor.id);
      await stores.factors.insertChallenge(challenge);

      expect(await stores.users.delete(user.id)).toBe(true);
      expect(await stores.factors.find(user.id, factor.id)).toBeNull();
      expect(await tx.run((s) => s.factors.lockChallenge(factor.id, challenge.id))).toBeNull();
      // Nothing of them is left behind: a user of the same id starts without factors, and their ids are free.
      await stores.users.insert(user);
      expect(await factorsOf(user.id)).toEqual([]);
      await stores.factors.insert(factor);
      await stores.factors.insertChallenge(challenge);
      expect(await factorsOf(user.id)).toEqual([factor]);
    });
  });
}
