import { beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../model/audit.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { idsOf, rejection, type StoreContractHarness, t, uniqueTag, uuid } from "./support.ts";

/** What an `AuditLogStore` must do: entries kept exactly, listed newest first, by author or action. */
export function describeAuditLogContract(harness: StoreContractHarness): void {
  describe("audit log", () => {
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      ({ stores, tx } = harness());
    });

    it("keeps entries exactly, lists them newest first a page at a time, and rolls back with the change", async () => {
      const actorId = uuid();
      const entry = (at: string, action: AuditEntry["action"]): AuditEntry => ({
        id: uuid(),
        action,
        actorId,
        actorUsername: "+15550101010",
        actorName: "Zoë",
        traits: { provider: "email", nested: { deep: [1, "two"] } },
        ipAddress: "2001:db8::1",
        userAgent: "Mozilla/5.0",
        createdAt: t(at),
      });
      // Far in the future, so that they are the newest entries whatever other tests of this suite wrote.
      const [older, newer, newest] = [
        entry("00:00:01.000", "login"),
        entry("00:00:02.000", "token_refreshed"),
        entry("00:00:03.000", "logout"),
      ].map((e) => ({ ...e, createdAt: new Date(e.createdAt.getTime() + 10 * 365 * 86_400_000) }));
      await stores.auditLog.append(older!);
      await stores.auditLog.append(newest!);
      await stores.auditLog.append({ ...newer!, actorName: null, ipAddress: null, userAgent: null, traits: {} });
      expect((await stores.auditLog.list({ page: 1, perPage: 2 })).entries).toEqual([
        newest,
        { ...newer!, actorName: null, ipAddress: null, userAgent: null, traits: {} },
      ]);
      expect((await stores.auditLog.list({ page: 2, perPage: 2 })).entries[0]).toEqual(older);

      const rolledBack = entry("00:00:04.000", "login");
      await rejection(
        tx.run(async (s) => {
          await s.auditLog.append({
            ...rolledBack,
            createdAt: new Date(rolledBack.createdAt.getTime() + 10 * 365 * 86_400_000),
          });
          throw new Error("boom");
        }),
      );
      expect((await stores.auditLog.list({ page: 1, perPage: 1 })).entries[0]?.id).toBe(newest!.id);
    });

    const anEntry = (overrides: Partial<AuditEntry>): AuditEntry => ({
      id: uuid(),
      action: "login",
      actorId: uuid(),
      actorUsername: "someone@example.com",
      actorName: null,
      traits: {},
      ipAddress: null,
      userAgent: null,
      createdAt: t("11:00:00.000"),
      ...overrides,
    });

    it("lists the entries of an author a page at a time, newest first, and counts them all", async () => {
      const tag = uniqueTag();
      const username = `author-${tag}@example.com`;
      const first = anEntry({ actorUsername: username, createdAt: t("11:00:00.000") });
      // Written in one instant: the one written last lists first.
      const second = anEntry({ actorUsername: username, action: "logout", createdAt: t("11:01:00.000") });
      const third = anEntry({ actorUsername: username, action: "token_refreshed", createdAt: t("11:01:00.000") });
      const byName = anEntry({
        actorUsername: "+15550001234",
        actorName: `Grace ${tag.toUpperCase()}`,
        createdAt: t("11:02:00.000"),
      });
      const last = anEntry({ actorUsername: username, createdAt: t("11:03:00.000") });
      for (const entry of [first, second, third, byName, last, anEntry({})]) await stores.auditLog.append(entry);
      const page = (page: number, author = tag) => stores.auditLog.list({ page, perPage: 2, author });

      expect(await page(1)).toEqual({ entries: [last, byName], total: 5 });
      expect(await page(2)).toEqual({ entries: [third, second], total: 5 });
      expect(await page(3)).toEqual({ entries: [first], total: 5 });
      expect(await page(4)).toEqual({ entries: [], total: 5 });
      expect((await page(1, `AUTHOR-${tag}`)).total).toBe(4);
    });

    it("takes % and _ in the author as text, not as wildcards", async () => {
      const tag = uniqueTag();
      const literal = anEntry({ actorName: `100%_${tag}` });
      const decoy = anEntry({ actorName: `100ab${tag}` });
      for (const entry of [literal, decoy]) await stores.auditLog.append(entry);
      const matching = async (author: string) =>
        idsOf((await stores.auditLog.list({ page: 1, perPage: 10, author })).entries);

      expect(await matching(`%_${tag}`)).toEqual([literal.id]);
      expect(await matching(`_${tag}`)).toEqual([literal.id]);
      expect(await matching(`0%${tag}`)).toEqual([]);
    });

    it("lists only the entries with one of the actions asked for, and none for an empty list", async () => {
      const author = `actions-${uniqueTag()}`;
      const [login, logout, refreshed, again] = [
        anEntry({ actorUsername: author, action: "login", createdAt: t("11:10:00.000") }),
        anEntry({ actorUsername: author, action: "logout", createdAt: t("11:11:00.000") }),
        anEntry({ actorUsername: author, action: "token_refreshed", createdAt: t("11:12:00.000") }),
        anEntry({ actorUsername: author, action: "login", createdAt: t("11:13:00.000") }),
      ];
      for (const entry of [login, logout, refreshed, again]) await stores.auditLog.append(entry);
      const list = (actions: readonly AuditEntry["action"][]) =>
        stores.auditLog.list({ page: 1, perPage: 10, author, actions });

      expect(await list(["login", "logout"])).toEqual({ entries: [again, logout, login], total: 3 });
      expect(await list(["user_invited"])).toEqual({ entries: [], total: 0 });
      expect(await list([])).toEqual({ entries: [], total: 0 });
      expect(await stores.auditLog.list({ page: 1, perPage: 10, actions: [] })).toEqual({ entries: [], total: 0 });
    });
  });
}
