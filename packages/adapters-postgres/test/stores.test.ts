import type { RefreshToken } from "@latchkey/domain";
import { isAuthError } from "@latchkey/domain";
import { aSession, aUser, nodeRandom } from "@latchkey/domain/testing";
import { eq, type SQL, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DatabaseError } from "../src/index.ts";
import { aFlowState, anOAuthFlow, aOneTimeToken, aRefreshToken, backends, gate, openedFor, sleep } from "./support.ts";

const later = new Date("2026-05-06T07:08:09.123Z");

// What the contract does not pin down but this adapter promises, on every backend.
describe.each(backends)("$name stores on one connection", (backend) => {
  // A failed statement that spoiled the connection would spoil the next statement too.
  const database = openedFor(backend, { maxPoolSize: 1 });

  it("stays usable after a unique violation outside a transaction", async () => {
    const { stores } = database();
    const holder = aUser();
    await stores.users.insert(holder);
    const error = await stores.users.insert(aUser({ email: holder.email })).catch((e: unknown) => e);
    expect(isAuthError(error, "email_exists")).toBe(true);
    const next = aUser();
    await stores.users.insert(next);
    expect((await stores.users.findById(next.id))?.id).toBe(next.id);
  });

  it("rolls back the whole transaction when a conflict propagates out of it", async () => {
    const { stores, tx } = database();
    const holder = aUser();
    await stores.users.insert(holder);
    const first = aUser();
    const error = await tx
      .run(async (s) => {
        await s.users.insert(first);
        await s.users.insert(aUser({ email: holder.email }));
      })
      .catch((e: unknown) => e);
    expect(isAuthError(error, "email_exists")).toBe(true);
    expect(await stores.users.findById(first.id)).toBeNull();
  });

  it("does not report success for a transaction whose failed statement was swallowed", async () => {
    const { stores, tx } = database();
    const holder = aUser();
    await stores.users.insert(holder);
    const first = aUser();
    const run = tx.run(async (s) => {
      await s.users.insert(first);
      await s.users.insert(aUser({ email: holder.email })).catch(() => undefined);
    });
    await expect(run).rejects.toThrow();
    expect(await stores.users.findById(first.id)).toBeNull();
  });

  it("inserts a user and its identities all or nothing, outside a transaction too", async () => {
    const { stores } = database();
    const holder = aUser();
    await stores.users.insert(holder);
    // The identity collides with the holder's: the user row inserted just before it must not stay.
    const user = aUser();
    const clash = { ...user, identities: [{ ...user.identities[0]!, providerId: holder.id }] };
    await expect(stores.users.insert(clash)).rejects.toMatchObject({ code: "identity_already_exists" });
    expect(await stores.users.findById(user.id)).toBeNull();
  });

  it("refuses to move another user's identity, and changes nothing", async () => {
    const { stores } = database();
    const owner = aUser();
    const other = aUser();
    await stores.users.insert(owner);
    await stores.users.insert(other);
    const taken = { ...owner.identities[0]!, id: nodeRandom.uuid(), userId: other.id, identityData: { stolen: true } };
    await expect(stores.identities.save(taken)).rejects.toThrow(/another user/);
    expect((await stores.users.findById(owner.id))?.identities).toEqual(owner.identities);
  });

  it("round-trips metadata exactly", async () => {
    const { stores } = database();
    const userMetadata = {
      unicode: "Zoë Ωμέγα 漢字 🔐",
      quotes: `"double" 'single' \`back\``,
      escapes: "back\\slash\nnew line\ttab",
      nested: { array: [1, null, { deep: [true, false, "x", 0.1, -7, 1e21] }], empty: {}, none: [] },
      nothing: null,
      "key with spaces": 'and a "quoted" key',
    };
    const user = aUser({ userMetadata, appMetadata: { provider: "email", providers: ["email"], list: [[], [[]]] } });
    await stores.users.insert(user);
    expect(await stores.users.findById(user.id)).toEqual(user);
  });

  it("answers null for ids that are not uuids", async () => {
    const { stores } = database();
    expect(await stores.users.findById("not-a-uuid")).toBeNull();
    const user = aUser();
    await stores.users.insert(user);
    expect(await stores.users.findWithSession("nope", "nope")).toBeNull();
    expect(await stores.users.findWithSession(user.id, "nope")).toEqual({ user, session: null });
  });

  it("reads timestamps back whatever the connection's time zone", async () => {
    // The hot reads take rows as json, whose timestamps carry the session time zone's offset.
    const { stores, db } = database();
    const user = aUser({ lastSignInAt: later, bannedUntil: new Date("2026-12-31T23:59:59.999Z") });
    const token = aRefreshToken("");
    const session = aSession(user.id, {
      rotatedAt: later,
      notAfter: new Date("2027-01-01T00:00:00.001Z"),
      refreshTokenId: token.id,
    });
    await stores.users.insert(user);
    await stores.sessions.open(session, { ...token, sessionId: session.id });
    try {
      for (const zone of ["Asia/Kolkata", "America/St_Johns", "UTC"]) {
        await db.execute(sql.raw(`set time zone '${zone}'`));
        expect(await stores.users.findWithSession(user.id, session.id)).toEqual({ user, session });
      }
    } finally {
      await db.execute(sql`reset time zone`);
    }
  });

  it("keeps statement parameters out of its errors", async () => {
    const { stores } = database();
    const user = aUser({ passwordHash: "$argon2id$secret-digest-that-must-not-be-logged" });
    await stores.users.insert(user);
    const error = await stores.users.insert({ ...user, email: null, identities: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error).toMatchObject({ code: "23505", constraint: expect.stringMatching(/users_pkey$/) });
    expect(`${String(error)} ${JSON.stringify(error)} ${(error as Error).stack}`).not.toContain("secret-digest");
  });

  it("answers for one-time token ids that are not uuids as for ids of no token", async () => {
    const { stores } = database();
    expect(await stores.oneTimeTokens.takeCodeAttempt("not-a-uuid", 5)).toBe(false);
    expect(await stores.oneTimeTokens.delete("not-a-uuid")).toBe(false);
  });

  it("removes a user's flows with the user", async () => {
    const { stores, db, schema } = database();
    const user = aUser();
    await stores.users.insert(user);
    const flow = aFlowState(user.id);
    await stores.flowStates.insert(flow);
    // No store deletes users yet; the cascade is the schema's.
    await db.delete(schema.users).where(eq(schema.users.id, user.id));
    expect(await stores.flowStates.consume(flow.authCodeHash)).toBeNull();
  });
});

describe.each(backends)("$name stores under concurrent transactions", (backend) => {
  // Enough connections that the second transaction waits for the row lock, not for a connection.
  const database = openedFor(backend, { maxPoolSize: 4 });

  it("keeps statements issued outside a transaction out of it, and away from its uncommitted rows", async () => {
    const { stores, tx } = database();
    const user = aUser();
    const written = gate();
    const release = gate();
    const rolledBack = tx
      .run(async (s) => {
        await s.users.insert(user);
        written.open();
        await release.opened;
        throw new Error("roll it back");
      })
      .catch(() => undefined);
    await written.opened;
    // PGlite has one connection: this must wait for the transaction rather than run inside it.
    const seen = stores.users.findById(user.id);
    await sleep(50);
    release.open();
    await rolledBack;
    expect(await seen).toBeNull();
    expect(await stores.users.findById(user.id)).toBeNull();
  });

  it("shows the next refresh of a family the user and identities the previous one committed", async () => {
    const { stores, tx } = database();
    const user = aUser();
    await stores.users.insert(user);
    const session = aSession(user.id);
    const token = aRefreshToken(session.id);
    await stores.sessions.open({ ...session, refreshTokenId: token.id }, token);
    const locked = gate();
    const release = gate();
    const identity = {
      ...user.identities[0]!,
      identityData: { ...user.identities[0]!.identityData, seen: 1 },
      updatedAt: later,
    };

    const first = tx.run(async (s) => {
      await s.refreshTokens.lockForRefresh(token.tokenHash);
      locked.open();
      await release.opened;
      await s.users.update({ ...user, userMetadata: { seen: 1 }, updatedAt: later });
      await s.identities.save(identity);
    });
    await locked.opened;
    // The second one starts, and waits for the lock, before the first writes anything.
    const second = tx.run((s) => s.refreshTokens.lockForRefresh(token.tokenHash));
    await sleep(150);
    release.open();
    await first;
    const found = await second;
    expect(found?.user.userMetadata).toEqual({ seen: 1 });
    expect(found?.user.identities).toEqual([identity]);
  });

  it("makes a guarded rotation that waited behind the family's lock re-check the session the holder committed", async () => {
    const { stores, tx } = database();
    const user = aUser();
    await stores.users.insert(user);
    const session = aSession(user.id);
    const parent = aRefreshToken(session.id);
    await stores.sessions.open({ ...session, refreshTokenId: parent.id }, parent);
    const locked = gate();
    const release = gate();
    const rotationOf = () => {
      const child = aRefreshToken(session.id, { parentId: parent.id });
      return {
        session: { ...session, refreshTokenId: child.id, previousRefreshTokenId: parent.id, rotatedAt: later },
        child,
      };
    };
    const first = rotationOf();

    const holder = tx.run(async (s) => {
      await s.refreshTokens.lockForRefresh(parent.tokenHash);
      locked.open();
      await release.opened;
      return s.sessions.rotate(first.session, first.child);
    });
    await locked.opened;
    // Decided on the state before the holder wrote: it must wait for the row, then find it moved on.
    const second = rotationOf();
    const late = stores.sessions.rotate(second.session, second.child);
    await sleep(150);
    release.open();
    expect(await holder).toBe(true);
    expect(await late).toBe(false);
    expect((await stores.users.findWithSession(user.id, session.id))?.session).toEqual(first.session);
    expect(await stores.refreshTokens.findForRefresh(second.child.tokenHash)).toBeNull();
  });

  it("shows a user locked for update with the identities the previous holder committed", async () => {
    const { stores, tx } = database();
    const user = aUser();
    await stores.users.insert(user);
    const locked = gate();
    const release = gate();
    const identity = { ...user.identities[0]!, identityData: { changed: true }, updatedAt: later };

    const first = tx.run(async (s) => {
      await s.users.findById(user.id, { forUpdate: true });
      locked.open();
      await release.opened;
      await s.identities.save(identity);
    });
    await locked.opened;
    const second = tx.run((s) => s.users.findById(user.id, { forUpdate: true }));
    await sleep(150);
    release.open();
    await first;
    expect((await second)?.identities).toEqual([identity]);
  });

  it("hands out exactly the maximum of code attempts among concurrent ones", async () => {
    const { stores } = database();
    const user = aUser();
    await stores.users.insert(user);
    const token = aOneTimeToken(user.id);
    await stores.oneTimeTokens.replace(token);
    const taken = await Promise.all(
      Array.from({ length: 12 }, () => stores.oneTimeTokens.takeCodeAttempt(token.id, 5)),
    );
    expect(taken.filter(Boolean)).toHaveLength(5);
    expect((await stores.oneTimeTokens.findByUser(user.id, token.kind))?.failedAttempts).toBe(5);
  });

  it("hands a flow, and a token, to one of two transactions using them at once", async () => {
    const { stores, tx } = database();
    const user = aUser();
    await stores.users.insert(user);
    const flow = aFlowState(user.id);
    const token = aOneTimeToken(user.id);
    await stores.flowStates.insert(flow);
    await stores.oneTimeTokens.replace(token);
    const taken = gate();
    const release = gate();
    const first = tx.run(async (s) => {
      const result = {
        flow: await s.flowStates.consume(flow.authCodeHash),
        token: await s.oneTimeTokens.delete(token.id),
      };
      taken.open();
      await release.opened;
      return result;
    });
    await taken.opened;
    // The second waits for the first's row locks, then finds both rows gone.
    const second = tx.run(async (s) => ({
      flow: await s.flowStates.consume(flow.authCodeHash),
      token: await s.oneTimeTokens.delete(token.id),
    }));
    await sleep(150);
    release.open();
    expect(await first).toEqual({ flow, token: true });
    expect(await second).toEqual({ flow: null, token: false });
  });

  it("hands an OAuth flow to one of two transactions taking it at once", async () => {
    const { stores, tx } = database();
    const user = aUser();
    await stores.users.insert(user);
    const flow = anOAuthFlow({ linkingTargetId: user.id });
    await stores.oauthFlows.insert(flow);
    const taken = gate();
    const release = gate();
    const first = tx.run(async (s) => {
      const result = await s.oauthFlows.take(flow.id);
      taken.open();
      await release.opened;
      return result;
    });
    await taken.opened;
    // The second waits for the first's row lock, then finds the row gone.
    let secondDone = false;
    const second = tx.run(async (s) => {
      const result = await s.oauthFlows.take(flow.id);
      secondDone = true;
      return result;
    });
    await sleep(150);
    expect(secondDone).toBe(false);
    release.open();
    expect(await first).toEqual(flow);
    expect(await second).toBeNull();
  });
});

// Only a server has other connections whose locks a statement can skip; PGlite runs one transaction at a time.
describe.each(backends.filter((backend) => backend.name === "postgres"))("$name clean-up", (backend) => {
  const database = openedFor(backend, { maxPoolSize: 4 });

  it("skips a stale row another transaction holds, without waiting for it, and takes it once free", async () => {
    const { stores, tx } = database();
    const old = new Date("2001-01-01T00:00:00.000Z");
    const held = aUser({ isAnonymous: true, email: null, identities: [], createdAt: old });
    const free = aUser({ isAnonymous: true, email: null, identities: [], createdAt: old });
    await stores.users.insert(held);
    await stores.users.insert(free);
    const locked = gate();
    const release = gate();
    const holder = tx.run(async (s) => {
      await s.users.findById(held.id, { forUpdate: true });
      locked.open();
      await release.opened;
    });
    await locked.opened;
    const cutoff = new Date("2001-02-01T00:00:00.000Z");
    // Waiting for the held row would never end: the holder lets go only after this.
    expect(await stores.staleRows.deleteStale("anonymous_users", cutoff, 10)).toBe(1);
    expect(await stores.users.findById(free.id)).toBeNull();
    release.open();
    await holder;
    expect(await stores.staleRows.deleteStale("anonymous_users", cutoff, 10)).toBe(1);
    expect(await stores.users.findById(held.id)).toBeNull();
  });

  it("walks past a rotated token another transaction holds, and deletes it once free; one instance at a time", async () => {
    const { stores, db, schema } = database();
    const at = (monthDay: string) => new Date(`2002-${monthDay}T00:00:00.000Z`);
    const cutoff = at("06-01");
    const user = aUser();
    await stores.users.insert(user);
    const session = aSession(user.id, { createdAt: at("01-01") });
    const chain = [aRefreshToken(session.id, { createdAt: at("01-01") })];
    for (const day of ["02-01", "03-01", "04-01"]) {
      chain.push(aRefreshToken(session.id, { parentId: chain.at(-1)!.id, createdAt: at(day) }));
    }
    await stores.sessions.open({ ...session, refreshTokenId: chain[0]!.id }, chain[0]!);
    for (const child of chain.slice(1)) {
      const rotated = {
        ...session,
        refreshTokenId: child.id,
        previousRefreshTokenId: child.parentId,
        rotatedAt: child.createdAt,
      };
      expect(await stores.sessions.rotate(rotated, child)).toBe(true);
    }
    const exists = async (token: RefreshToken) => (await stores.refreshTokens.findForRefresh(token.tokenHash)) !== null;
    /** Runs `statement` in a transaction of its own that holds its locks until the returned release is called. */
    const holding = async (statement: SQL) => {
      const locked = gate();
      const release = gate();
      const holder = db.transaction(async (t) => {
        await t.execute(statement);
        locked.open();
        await release.opened;
      });
      await locked.opened;
      return async () => {
        release.open();
        await holder;
      };
    };

    // Another instance's batch holds the mark: this one skips the kind at once.
    let release = await holding(sql`select 1 from ${schema.cleanupMarks} for update`);
    expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 10)).toBe(0);
    await release();

    // A reuse ending the session holds the second token: the first goes, and the walk stops before the second's
    // child, which is what finds it; the third (the current token's parent) waits with it.
    const [first, second, third, current] = chain as [RefreshToken, RefreshToken, RefreshToken, RefreshToken];
    release = await holding(sql`select 1 from ${schema.refreshTokens} where id = ${second.id} for update`);
    expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 10)).toBe(1);
    expect([await exists(first), await exists(second), await exists(third)]).toEqual([false, true, true]);
    await release();
    expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 10)).toBe(2);
    expect([await exists(second), await exists(third)]).toEqual([false, false]);
    expect(await exists(current)).toBe(true);
    expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 10)).toBe(0);
  });
});
