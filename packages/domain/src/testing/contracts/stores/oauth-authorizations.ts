import { beforeAll, describe, expect, it } from "vitest";
import type { OAuthAuthorization } from "../../../model/oauth-authorization.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aUser } from "../../builders.ts";
import {
  anAuthorizationId,
  anOAuthAuthorization,
  anOAuthClient,
  digest,
  type StoreContractHarness,
  t,
  uuid,
} from "./support.ts";

/** Before every request the tests make expires, so that their inserts forget none of the others'. */
const now = t("20:59:00.000");

/** What an `OAuthAuthorizationStore` must do: requests kept exactly, answered in place, held one transaction at a time. */
export function describeOAuthAuthorizationsContract(harness: StoreContractHarness): void {
  describe("OAuth authorizations", () => {
    let stores: Stores;
    let tx: Transactor;
    let clientId: string;
    beforeAll(async () => {
      ({ stores, tx } = harness());
      const client = anOAuthClient();
      await stores.oauthClients.insert(client);
      clientId = client.id;
    });

    const insert = async (...authorizations: OAuthAuthorization[]) => {
      for (const authorization of authorizations) await stores.oauthAuthorizations.insert(authorization, now);
    };
    const lock = (id: string) => tx.run((s) => s.oauthAuthorizations.lock(id));
    /** A request a user approved, holding the digest of the code it handed out. */
    const approved = async (overrides: Partial<OAuthAuthorization> = {}) => {
      const user = aUser();
      await stores.users.insert(user);
      const status = "approved" as const;
      return anOAuthAuthorization(clientId, { userId: user.id, status, codeDigest: digest(), ...overrides });
    };

    it("locks a request exactly as it was inserted, optional fields set or not", async () => {
      const full = anOAuthAuthorization(clientId, {
        // Text a client chose: nothing of it may be read as anything but itself.
        state: 'Zoë\'s "state" \\ 🔑 %s $1',
        createdAt: t("21:00:00.125"),
        expiresAt: t("21:03:00.875"),
      });
      const bare = anOAuthAuthorization(clientId, { state: null, resource: null, nonce: null, scope: "" });
      const answered = await approved({ approvedAt: t("21:01:00.500") });
      await insert(full, bare, answered);

      expect(await lock(full.id)).toEqual(full);
      expect(await lock(bare.id)).toEqual(bare);
      expect(await lock(answered.id)).toEqual(answered);
      // Outside a transaction too, as a call of its own.
      expect(await stores.oauthAuthorizations.lock(full.id)).toEqual(full);
    });

    it("locks nothing for an unknown id, whatever the string, without throwing", async () => {
      await insert(anOAuthAuthorization(clientId));
      const ids = [anAuthorizationId(), uuid(), "", "not-an-id", "'; drop table x; --", "x".repeat(2000), "a\u0000b"];
      for (const id of ids) expect(await lock(id)).toBeNull();
    });

    it("writes the user, the status, the code digest, the session and the approval time on update, only those", async () => {
      const user = aUser();
      await stores.users.insert(user);
      const [request, sibling] = [anOAuthAuthorization(clientId), anOAuthAuthorization(clientId)];
      await insert(request, sibling);

      const bound = { ...request, userId: user.id };
      await stores.oauthAuthorizations.update(bound);
      expect(await lock(request.id)).toEqual(bound);
      const answered = { ...bound, status: "approved" as const, codeDigest: digest(), approvedAt: t("21:02:00.250") };
      // With fields of its own the update must leave as they were.
      const others = { redirectUri: "https://evil.example/", scope: "phone", state: null, nonce: null };
      await tx.run((s) => s.oauthAuthorizations.update({ ...answered, ...others, expiresAt: t("23:00:00.000") }));
      expect(await lock(request.id)).toEqual(answered);
      const exchanged = { ...answered, status: "exchanged" as const, sessionId: uuid() };
      await stores.oauthAuthorizations.update(exchanged);
      expect(await lock(request.id)).toEqual(exchanged);
      const denied = { ...bound, status: "denied" as const, codeDigest: null, sessionId: null, approvedAt: null };
      await stores.oauthAuthorizations.update(denied);
      expect(await lock(request.id)).toEqual(denied);

      expect(await lock(sibling.id)).toEqual(sibling);
      const unknown = anOAuthAuthorization(clientId);
      await stores.oauthAuthorizations.update(unknown);
      expect(await lock(unknown.id)).toBeNull();
    });

    it("refuses a code digest another request holds", async () => {
      const [first, second] = [await approved(), anOAuthAuthorization(clientId)];
      await insert(first, second);
      await expect(stores.oauthAuthorizations.update({ ...second, codeDigest: first.codeDigest })).rejects.toThrow();
      await expect(insert(anOAuthAuthorization(clientId, { codeDigest: first.codeDigest }))).rejects.toThrow();
      expect(await lock(second.id)).toEqual(second);
    });

    it("finds a request by its code's digest, whatever its status, and none by another", async () => {
      const request = await approved({ approvedAt: t("21:01:00.000") });
      const exchanged = await approved({ status: "exchanged", sessionId: uuid() });
      const denied = anOAuthAuthorization(clientId, { status: "denied", codeDigest: digest() });
      const pending = anOAuthAuthorization(clientId);
      await insert(request, exchanged, denied, pending);
      const lockByCode = (codeDigest: string) => tx.run((s) => s.oauthAuthorizations.lockByCode(codeDigest));

      for (const each of [request, exchanged, denied]) expect(await lockByCode(each.codeDigest!)).toEqual(each);
      // Outside a transaction too, as a call of its own.
      expect(await stores.oauthAuthorizations.lockByCode(request.codeDigest!)).toEqual(request);
      for (const unknown of [digest(), "", "a\u0000b", "'; drop table x; --"])
        expect(await lockByCode(unknown)).toBeNull();
      // Once answered otherwise, the request no longer holds that code.
      await stores.oauthAuthorizations.update({ ...request, status: "denied", codeDigest: null });
      expect(await lockByCode(request.codeDigest!)).toBeNull();
    });

    it("lets one transaction at a time hold a request by its code, and shows the next what the first wrote", async () => {
      const request = await approved();
      await insert(request);
      let signalLocked!: () => void;
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const exchanged = { ...request, status: "exchanged" as const, sessionId: uuid() };

      const first = tx.run(async (s) => {
        const found = await s.oauthAuthorizations.lockByCode(request.codeDigest!);
        signalLocked();
        await released;
        await s.oauthAuthorizations.update({ ...found!, status: "exchanged", sessionId: exchanged.sessionId });
      });
      await locked;
      let secondDone = false;
      const second = tx.run(async (s) => {
        const found = await s.oauthAuthorizations.lockByCode(request.codeDigest!);
        secondDone = true;
        return found;
      });
      const byId = tx.run((s) => s.oauthAuthorizations.lock(request.id));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect(await second).toEqual(exchanged);
      expect(await byId).toEqual(exchanged);
    });

    it("keeps a request expired but not yet forgotten, and forgets those expired before an insert's now", async () => {
      // Years before the other tests' requests, so that the inserts here forget only this test's.
      const at = (iso: string) => new Date(`2020-01-01T${iso}Z`);
      const made = (status: OAuthAuthorization["status"], expiresAt: string) =>
        anOAuthAuthorization(clientId, { status, createdAt: at("10:00:00.000"), expiresAt: at(expiresAt) });
      // Of every status: an answered request that was never exchanged is forgotten as well.
      const early = made("pending", "10:03:00.000");
      const late = made("approved", "10:04:00.000");
      const kept = made("denied", "10:05:00.000");
      for (const each of [early, late, kept]) await stores.oauthAuthorizations.insert(each, at("10:00:00.000"));

      // Expired at the instant: not before it, so not forgotten.
      await stores.oauthAuthorizations.insert(anOAuthAuthorization(clientId), at("10:03:00.000"));
      expect(await lock(early.id)).toEqual(early);
      await stores.oauthAuthorizations.insert(anOAuthAuthorization(clientId), at("10:04:00.001"));
      expect(await lock(early.id)).toBeNull();
      expect(await lock(late.id)).toBeNull();
      expect(await lock(kept.id)).toEqual(kept);
    });

    it("deletes the requests bound to a user with the user", async () => {
      const [user, other] = [aUser(), aUser()];
      await stores.users.insert(user);
      await stores.users.insert(other);
      const mine = anOAuthAuthorization(clientId, { userId: user.id });
      const theirs = anOAuthAuthorization(clientId, { userId: other.id });
      const unbound = anOAuthAuthorization(clientId);
      await insert(mine, theirs, unbound);

      expect(await stores.users.delete(user.id)).toBe(true);
      expect(await lock(mine.id)).toBeNull();
      expect(await lock(theirs.id)).toEqual(theirs);
      expect(await lock(unbound.id)).toEqual(unbound);
    });
  });
}
