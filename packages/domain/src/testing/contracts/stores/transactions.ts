import { beforeAll, describe, expect, it } from "vitest";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aSession, aUser } from "../../builders.ts";
import { aRefreshToken, rejection, type StoreContractHarness } from "./support.ts";

/** What a `Transactor` must do: commit, roll back, and hold a locked row for one transaction at a time. */
export function describeTransactionsContract(harness: StoreContractHarness): void {
  describe("transactions", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    it("commits what the work wrote when it resolves", async () => {
      const user = aUser();
      const result = await tx.run(async (s) => {
        await s.users.insert(user);
        return "done";
      });
      expect(result).toBe("done");
      expect((await stores.users.findById(user.id))?.id).toBe(user.id);
    });

    it("rolls back everything the work wrote when it throws", async () => {
      const user = aUser();
      const session = aSession(user.id);
      const failure = await rejection(
        tx.run(async (s) => {
          await s.users.insert(user);
          await s.sessions.open(session, aRefreshToken(session.id));
          throw new Error("boom");
        }),
      );
      expect((failure as Error).message).toBe("boom");
      expect(await stores.users.findById(user.id)).toBeNull();
    });

    it("sees its own writes before it commits", async () => {
      const user = aUser();
      await tx.run(async (s) => {
        await s.users.insert(user);
        await s.users.update({ ...user, role: "changed" });
        expect((await s.users.findById(user.id))?.role).toBe("changed");
      });
    });

    it("lets one transaction at a time hold a user row it locked, and shows the next one what the first wrote", async () => {
      const user = aUser();
      await stores.users.insert(user);
      let signalLocked!: () => void;
      const locked = new Promise<void>((resolve) => (signalLocked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));

      const first = tx.run(async (s) => {
        await s.users.findById(user.id, { forUpdate: true });
        signalLocked();
        await released;
        await s.users.update({ ...user, userMetadata: { writtenBy: "first" } });
      });
      await locked;
      let secondDone = false;
      const second = tx.run(async (s) => {
        const found = await s.users.findById(user.id, { forUpdate: true });
        secondDone = true;
        return found?.userMetadata;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect(await second).toEqual({ writtenBy: "first" });
    });
  });
}
