import { beforeAll, describe, expect, it } from "vitest";
import type { WebAuthnChallenge } from "../../../model/webauthn.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import { digest, type StoreContractHarness, t, uuid } from "./support.ts";

/** A sign-in's challenge, bound to no one, expiring five minutes after it began. */
function aSignInChallenge(overrides: Partial<WebAuthnChallenge> = {}): WebAuthnChallenge {
  return {
    id: uuid(),
    ceremony: "authentication",
    userId: null,
    sessionId: null,
    challenge: digest(),
    userVerification: "preferred",
    createdAt: t("20:00:00.000"),
    expiresAt: t("20:05:00.000"),
    ...overrides,
  };
}

/** A registration's challenge, bound to the user and the session that asked for it. */
function aRegistrationChallenge(userId: string, overrides: Partial<WebAuthnChallenge> = {}): WebAuthnChallenge {
  return aSignInChallenge({ ceremony: "registration", userId, sessionId: uuid(), ...overrides });
}

/** Before every challenge the other tests begin. */
const now = t("19:59:00.000");

/** What a `WebAuthnChallengeStore` must do: a ceremony's challenge answers once, and only that ceremony. */
export function describeWebAuthnChallengesContract(harness: StoreContractHarness): void {
  describe("webauthn challenges", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    it("takes a challenge once, exactly as it was inserted", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const registration = aRegistrationChallenge(user.id, {
        userVerification: "required",
        createdAt: t("20:00:00.125"),
        expiresAt: t("20:05:00.875"),
      });
      const signIn = aSignInChallenge({ userVerification: "discouraged" });
      for (const challenge of [registration, signIn]) await stores.webauthnChallenges.insert(challenge, now);

      expect(await stores.webauthnChallenges.take(uuid(), "authentication", null)).toBeNull();
      expect(await stores.webauthnChallenges.take(registration.id, "registration", user.id)).toEqual(registration);
      expect(await stores.webauthnChallenges.take(registration.id, "registration", user.id)).toBeNull();
      expect(await stores.webauthnChallenges.take(signIn.id, "authentication", null)).toEqual(signIn);
      expect(await stores.webauthnChallenges.take(signIn.id, "authentication", null)).toBeNull();
    });

    it("takes a challenge for its own ceremony and user only, and keeps it for them otherwise", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const registration = aRegistrationChallenge(user.id);
      const signIn = aSignInChallenge();
      const othersSignIn = aSignInChallenge({ userId: other.id });
      for (const challenge of [registration, signIn, othersSignIn]) {
        await stores.webauthnChallenges.insert(challenge, now);
      }
      const take: Stores["webauthnChallenges"]["take"] = (...args) => stores.webauthnChallenges.take(...args);

      expect(await take(registration.id, "authentication", user.id)).toBeNull();
      expect(await take(registration.id, "registration", other.id)).toBeNull();
      expect(await take(registration.id, "registration", null)).toBeNull();
      expect(await take(registration.id, "registration", "not-a-uuid")).toBeNull();
      expect(await take("not-a-uuid", "registration", user.id)).toBeNull();
      expect(await take("not-a-uuid", "authentication", null)).toBeNull();
      // No user matches only a challenge bound to none, and a challenge bound to none matches no user.
      expect(await take(signIn.id, "authentication", user.id)).toBeNull();
      expect(await take(signIn.id, "registration", null)).toBeNull();
      expect(await take(othersSignIn.id, "authentication", null)).toBeNull();

      expect(await take(registration.id, "registration", user.id)).toEqual(registration);
      expect(await take(signIn.id, "authentication", null)).toEqual(signIn);
      expect(await take(othersSignIn.id, "authentication", other.id)).toEqual(othersSignIn);
    });

    it("hands out a challenge expired but not yet forgotten, and forgets those expired before an insert's now", async () => {
      // Years before the other tests' challenges, so that the inserts here forget only this test's.
      const at = (iso: string) => new Date(`2020-01-01T${iso}Z`);
      const early = aSignInChallenge({ createdAt: at("10:00:00.000"), expiresAt: at("10:05:00.000") });
      const late = aSignInChallenge({ createdAt: at("10:01:00.000"), expiresAt: at("10:06:00.000") });
      const kept = aSignInChallenge({ createdAt: at("10:02:00.000"), expiresAt: at("10:07:00.000") });
      for (const challenge of [early, late, kept])
        await stores.webauthnChallenges.insert(challenge, at("10:02:00.000"));

      // Expired at the instant: not before it, so not forgotten.
      await stores.webauthnChallenges.insert(aSignInChallenge(), at("10:05:00.000"));
      expect(await stores.webauthnChallenges.take(early.id, "authentication", null)).toEqual(early);
      await stores.webauthnChallenges.insert(early, at("10:05:00.000"));
      await stores.webauthnChallenges.insert(aSignInChallenge(), at("10:06:00.001"));
      expect(await stores.webauthnChallenges.take(early.id, "authentication", null)).toBeNull();
      expect(await stores.webauthnChallenges.take(late.id, "authentication", null)).toBeNull();
      expect(await stores.webauthnChallenges.take(kept.id, "authentication", null)).toEqual(kept);
    });

    it("gives a challenge to one of two concurrent takes", async () => {
      const user = aUser();
      await stores.users.insert(user);
      for (const challenge of [aSignInChallenge(), aRegistrationChallenge(user.id)]) {
        await stores.webauthnChallenges.insert(challenge, now);
        const { id, ceremony, userId } = challenge;
        const take = () => tx.run((s) => s.webauthnChallenges.take(id, ceremony, userId));
        const taken = await Promise.all([take(), take(), stores.webauthnChallenges.take(id, ceremony, userId)]);
        expect(taken.filter((found) => found !== null)).toEqual([challenge]);
      }
    });

    it("deletes a user's challenges with the user", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const [mine, theirs] = [aRegistrationChallenge(user.id), aRegistrationChallenge(other.id)];
      for (const challenge of [mine, theirs]) await stores.webauthnChallenges.insert(challenge, now);

      expect(await stores.users.delete(user.id)).toBe(true);
      await stores.users.insert(user);
      expect(await stores.webauthnChallenges.take(mine.id, "registration", user.id)).toBeNull();
      expect(await stores.webauthnChallenges.take(theirs.id, "registration", other.id)).toEqual(theirs);
    });
  });
}
