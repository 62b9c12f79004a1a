import { beforeAll, describe, expect, it } from "vitest";
import type { Identity } from "../../../model/identity.ts";
import type { OneTimeTokenKind } from "../../../model/one-time-token.ts";
import type { OutboxEntry } from "../../../model/outbox.ts";
import type { RefreshToken } from "../../../model/refresh-token.ts";
import type { Session } from "../../../model/session.ts";
import type { WebAuthnChallenge } from "../../../model/webauthn.ts";
import type { StaleRowKind } from "../../../ports/stale-rows.ts";
import type { Stores, Transactor } from "../../../ports/stores.ts";
import { aSession, aUser } from "../../builders.ts";
import {
  aFactor,
  aFlowState,
  anOAuthAuthorization,
  anOAuthClient,
  anOAuthFlow,
  anOtt,
  anSsoProvider,
  aRefreshToken,
  aSamlRelayState,
  digest,
  type StoreContractHarness,
  type StoreContractSubject,
  storeSession,
  uniqueTag,
  uuid,
} from "./support.ts";

/**
 * What a `StaleRowStore` must do: for each kind, delete what its cutoff makes stale, a batch of at most `limit` rows
 * at a time, and nothing else, taking with each row what goes with it.
 */
export function describeStaleRowsContract(harness: StoreContractHarness): void {
  describe("stale rows", () => {
    let subject: StoreContractSubject;
    let stores: Stores;
    let tx: Transactor;
    beforeAll(() => {
      subject = harness();
      ({ stores, tx } = subject);
    });

    // Every test has a year of its own, each before the last one's and before every other suite's rows (2020 on),
    // so that a cutoff makes stale only what its own test wrote, and leaves what earlier tests kept.
    let year = 2016;
    const era = () => {
      year -= 1;
      const of = year;
      const at = (monthDay: string) => new Date(`${of}-${monthDay}T00:00:00.000Z`);
      return { at, cutoff: at("06-01") };
    };

    // Rotations are looked at once each, in the order of their children's creation (the store keeps how far it
    // got): the tests of rotated tokens go forward in time instead, from a year before every other test's, and take
    // their sessions away when done, so that a later cutoff finds none of their rows.
    let rotationYear = 1990;
    const rotationEra = () => {
      rotationYear += 1;
      const of = rotationYear;
      const at = (monthDay: string) => new Date(`${of}-${monthDay}T00:00:00.000Z`);
      return { at, cutoff: at("06-01") };
    };

    /** Deletes the `stale` rows in two batches, the first one row short of them all; then finds none left. */
    const deletesInBatches = async (kind: StaleRowKind, cutoff: Date, stale: number) => {
      expect(await stores.staleRows.deleteStale(kind, cutoff, stale - 1)).toBe(stale - 1);
      expect(await stores.staleRows.deleteStale(kind, cutoff, stale)).toBe(1);
      expect(await stores.staleRows.deleteStale(kind, cutoff, stale)).toBe(0);
    };

    const tokenExists = async (tokenHash: string) => (await stores.refreshTokens.findForRefresh(tokenHash)) !== null;

    /**
     * A session of `userId` opened with a token created on the first of `days` and rotated into one created on each
     * of the others: its tokens, `rotate` to move it on to one more, and `stored()`, the session as stored now.
     */
    const aFamily = async (userId: string, at: (monthDay: string) => Date, days: readonly string[]) => {
      const family = aSession(userId, { createdAt: at(days[0]!) });
      const chain: RefreshToken[] = [];
      for (const day of days) {
        chain.push(aRefreshToken(family.id, { parentId: chain.at(-1)?.id ?? null, createdAt: at(day) }));
      }
      await storeSession(stores, family, chain[0]);
      let stored: Session = { ...family, refreshTokenId: chain[0]!.id };
      const rotate = async (child: RefreshToken) => {
        const { id, parentId, createdAt } = child;
        stored = { ...stored, refreshTokenId: id, previousRefreshTokenId: parentId, rotatedAt: createdAt };
        expect(await stores.sessions.rotate(stored, child)).toBe(true);
      };
      for (const child of chain.slice(1)) await rotate(child);
      return { family, chain, rotate, stored: () => stored };
    };
    const sessionOf = async (session: Session) =>
      (await stores.users.findWithSession(session.userId, session.id))?.session ?? null;

    it("deletes rotated refresh tokens, never a session's current one nor one rotated after the cutoff", async () => {
      const { at, cutoff } = rotationEra();
      const user = aUser();
      await stores.users.insert(user);

      // A family rotated three times: the first two rotations before the cutoff, the last one after it.
      const { family, chain, rotate } = await aFamily(user.id, at, ["03-01", "04-01", "05-01", "07-01"]);
      const [a0, a1, a2, a3] = chain as [RefreshToken, RefreshToken, RefreshToken, RefreshToken];

      // Rotated once before the cutoff: its current token stays, however old.
      const { family: idle, chain: idleChain } = await aFamily(user.id, at, ["02-01", "03-01"]);
      const [b0, b1] = idleChain as [RefreshToken, RefreshToken];

      // Tokens no session points at, with no child (no rotation leaves one): they go with their session.
      const orphaned = (created: Date) => {
        const session = aSession(user.id, { createdAt: created, refreshTokenId: uuid() });
        const token = aRefreshToken(session.id, { createdAt: created });
        return { session, token };
      };
      const [old, young] = [orphaned(at("02-01")), orphaned(at("08-01"))];
      for (const { session, token } of [old, young]) await stores.sessions.open(session, token);

      await deletesInBatches("rotated_refresh_tokens", cutoff, 3);

      for (const gone of [a0, a1, b0]) expect(await tokenExists(gone.tokenHash)).toBe(false);
      // a2 was rotated after the cutoff; a3 and b1 are current; the others were never rotated.
      for (const kept of [a2, a3, b1, old.token, young.token]) expect(await tokenExists(kept.tokenHash)).toBe(true);
      for (const session of [family, idle, old.session, young.session]) expect(await sessionOf(session)).not.toBeNull();
      // A token whose parent went is still found, still naming it, and still rotates.
      const found = await stores.refreshTokens.findForRefresh(a2.tokenHash);
      expect(found?.token.parentId).toBe(a1.id);
      await rotate(aRefreshToken(family.id, { parentId: a3.id, createdAt: at("08-01") }));
      await stores.sessions.deleteAllOfUser(user.id);
    });

    it("looks at each rotation once: a later cutoff deletes only what was rotated since the last", async () => {
      const { at, cutoff } = rotationEra();
      const user = aUser();
      await stores.users.insert(user);
      const { family, chain, rotate, stored } = await aFamily(user.id, at, ["02-01", "03-01", "04-01"]);
      expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 10)).toBe(2);
      expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 10)).toBe(0);

      // Rotated twice after that cutoff: a later one takes those two parents, and nothing looked at before.
      const later = [aRefreshToken(family.id, { parentId: chain[2]!.id, createdAt: at("07-01") })];
      later.push(aRefreshToken(family.id, { parentId: later[0]!.id, createdAt: at("08-01") }));
      for (const child of later) await rotate(child);
      expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", at("09-01"), 10)).toBe(2);
      for (const gone of [...chain, later[0]!]) expect(await tokenExists(gone.tokenHash)).toBe(false);
      expect((await stores.refreshTokens.findForRefresh(later[1]!.tokenHash))?.session).toEqual(stored());
      await stores.sessions.deleteAllOfUser(user.id);
    });

    it("takes a family's rotated tokens from its oldest end, one at a time too", async () => {
      const { at, cutoff } = rotationEra();
      const user = aUser();
      await stores.users.insert(user);
      const { chain } = await aFamily(user.id, at, ["02-01", "03-01", "04-01", "05-01"]);
      // Each call takes the oldest: one parent each, the current token never.
      for (let call = 0; call < 3; call++) {
        expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 1)).toBe(1);
      }
      expect(await stores.staleRows.deleteStale("rotated_refresh_tokens", cutoff, 1)).toBe(0);
      for (const gone of chain.slice(0, 3)) expect(await tokenExists(gone.tokenHash)).toBe(false);
      expect(await tokenExists(chain[3]!.tokenHash)).toBe(true);
      await stores.sessions.deleteAllOfUser(user.id);
    });

    it("deletes sessions ended before the cutoff, with their refresh tokens, and no live one", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      const ended = ["03-01", "04-01", "05-01"].map((day) =>
        aSession(user.id, { createdAt: at("01-01"), notAfter: at(day) }),
      );
      const endingLater = aSession(user.id, { createdAt: at("01-01"), notAfter: at("07-01") });
      const live = aSession(user.id, { createdAt: at("01-01") });
      const tokens = new Map<Session, string>();
      for (const session of [...ended, endingLater, live])
        tokens.set(session, (await storeSession(stores, session)).tokenHash);

      await deletesInBatches("ended_sessions", cutoff, 3);

      for (const session of ended) {
        expect(await sessionOf(session)).toBeNull();
        expect(await tokenExists(tokens.get(session)!)).toBe(false);
      }
      for (const session of [endingLater, live]) {
        expect(await sessionOf(session)).not.toBeNull();
        expect(await tokenExists(tokens.get(session)!)).toBe(true);
      }
    });

    it("deletes sessions created before the cutoff, with their refresh tokens, and no younger one", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      const old = ["02-01", "03-01", "04-01"].map((day) => aSession(user.id, { createdAt: at(day) }));
      const young = aSession(user.id, { createdAt: at("07-01") });
      const tokens = new Map<Session, string>();
      for (const session of [...old, young]) {
        tokens.set(
          session,
          (await storeSession(stores, session, aRefreshToken(session.id, { createdAt: session.createdAt }))).tokenHash,
        );
      }

      await deletesInBatches("timeboxed_sessions", cutoff, 3);

      for (const session of old) {
        expect(await sessionOf(session)).toBeNull();
        expect(await tokenExists(tokens.get(session)!)).toBe(false);
      }
      expect(await sessionOf(young)).not.toBeNull();
      expect(await tokenExists(tokens.get(young)!)).toBe(true);
    });

    it("deletes sessions last rotated, else created, before the cutoff, and no session refreshed since", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      /** A session created on `created`, rotated once on `rotated` if given; returns it as stored, and its tokens. */
      const aSessionOf = async (created: string, rotated?: string) => {
        const session = aSession(user.id, { createdAt: at(created) });
        const first = aRefreshToken(session.id, { createdAt: at(created) });
        await storeSession(stores, session, first);
        if (rotated === undefined)
          return { session: { ...session, refreshTokenId: first.id }, hashes: [first.tokenHash] };
        const child = aRefreshToken(session.id, { parentId: first.id, createdAt: at(rotated) });
        const stored = {
          ...session,
          refreshTokenId: child.id,
          previousRefreshTokenId: first.id,
          rotatedAt: child.createdAt,
        };
        expect(await stores.sessions.rotate({ ...stored }, child)).toBe(true);
        return { session: stored, hashes: [first.tokenHash, child.tokenHash] };
      };
      const inactive = [
        await aSessionOf("02-01"),
        await aSessionOf("01-01", "03-01"),
        await aSessionOf("01-01", "05-01"),
      ];
      // Created long before the cutoff, but refreshed after it; and one created after it, never refreshed.
      const active = [await aSessionOf("01-01", "07-01"), await aSessionOf("07-01")];

      await deletesInBatches("inactive_sessions", cutoff, 3);

      for (const { session, hashes } of inactive) {
        expect(await sessionOf(session)).toBeNull();
        for (const hash of hashes) expect(await tokenExists(hash)).toBe(false);
      }
      for (const { session, hashes } of active) {
        expect(await sessionOf(session)).toEqual(session);
        for (const hash of hashes) expect(await tokenExists(hash)).toBe(true);
      }
    });

    it("deletes one-time tokens created before the cutoff, and no younger one", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      const kinds: OneTimeTokenKind[] = ["confirmation", "recovery", "magic_link", "reauthentication"];
      const [first, second, third, young] = kinds.map((kind, i) =>
        anOtt(user.id, { kind, createdAt: at(["02-01", "03-01", "04-01", "07-01"][i]!) }),
      );
      for (const token of [first!, second!, third!, young!]) await stores.oneTimeTokens.replace(token);

      await deletesInBatches("one_time_tokens", cutoff, 3);

      for (const gone of [first!, second!, third!])
        expect(await stores.oneTimeTokens.findByUser(user.id, gone.kind)).toBeNull();
      expect(await stores.oneTimeTokens.findByUser(user.id, young!.kind)).toEqual(young);
    });

    it("deletes PKCE flows created before the cutoff, and no younger one", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      const aFlow = (day: string) => aFlowState(user.id, { createdAt: at(day) });
      const old = ["02-01", "03-01", "04-01"].map(aFlow);
      const young = aFlow("07-01");
      for (const flow of [...old, young]) await stores.flowStates.insert(flow);

      await deletesInBatches("flow_states", cutoff, 3);

      for (const flow of old) expect(await stores.flowStates.consume(flow.authCodeHash)).toBeNull();
      expect(await stores.flowStates.consume(young.authCodeHash)).toEqual(young);
    });

    it("deletes OAuth flows created before the cutoff, and no younger one", async () => {
      const { at, cutoff } = era();
      const aFlow = (day: string) => anOAuthFlow({ createdAt: at(day) });
      const old = ["02-01", "03-01", "04-01"].map(aFlow);
      const young = aFlow("07-01");
      // Newest first: an insert forgets the flows begun more than a day before it.
      for (const flow of [young, ...old.reverse()]) await stores.oauthFlows.insert(flow);

      await deletesInBatches("oauth_flows", cutoff, 3);

      for (const flow of old) expect(await stores.oauthFlows.take(flow.id)).toBeNull();
      expect(await stores.oauthFlows.take(young.id)).toEqual(young);
    });

    it("deletes SAML relay states created before the cutoff, and no younger one", async () => {
      const { at, cutoff } = era();
      const provider = anSsoProvider(uniqueTag());
      await stores.ssoProviders.insert(provider);
      const aState = (day: string) => aSamlRelayState(provider.id, { createdAt: at(day) });
      const old = ["02-01", "03-01", "04-01"].map(aState);
      const young = aState("07-01");
      for (const state of [...old, young]) await stores.samlRelayStates.insert(state);

      await deletesInBatches("saml_relay_states", cutoff, 3);

      for (const state of old) expect(await stores.samlRelayStates.take(state.id)).toBeNull();
      expect(await stores.samlRelayStates.take(young.id)).toEqual(young);
      // Its provider stays.
      expect((await stores.ssoProviders.find(provider.id))?.id).toBe(provider.id);
    });

    it("deletes MFA challenges created before the cutoff, and neither a younger one nor their factor", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      const factor = aFactor(user.id, { status: "verified", createdAt: at("01-01"), updatedAt: at("01-01") });
      await stores.factors.insert(factor);
      const aChallenge = (day: string) => ({
        id: uuid(),
        factorId: factor.id,
        ip: "203.0.113.7",
        codeDigest: null,
        webauthn: null,
        createdAt: at(day),
        verifiedAt: null,
      });
      const old = ["02-01", "03-01", "04-01"].map(aChallenge);
      const young = aChallenge("07-01");
      for (const challenge of [...old, young]) await stores.factors.insertChallenge(challenge);

      await deletesInBatches("mfa_challenges", cutoff, 3);

      const lock = (id: string) => tx.run((s) => s.factors.lockChallenge(factor.id, id));
      for (const challenge of old) expect(await lock(challenge.id)).toBeNull();
      expect(await lock(young.id)).toEqual(young);
      expect(await stores.factors.find(user.id, factor.id)).toEqual(factor);
    });

    it("deletes factors left unverified since before the cutoff, with their challenges, and no verified one", async () => {
      const { at, cutoff } = era();
      const user = aUser();
      await stores.users.insert(user);
      const factorOf = (day: string, status: "verified" | "unverified") =>
        aFactor(user.id, { status, createdAt: at(day), updatedAt: at(day) });
      const stale = [factorOf("02-01", "unverified"), factorOf("03-01", "unverified"), factorOf("04-01", "unverified")];
      const verified = factorOf("01-01", "verified");
      const young = factorOf("07-01", "unverified");
      for (const factor of [...stale, verified, young]) await stores.factors.insert(factor);
      // A challenge younger than the cutoff: it goes with its factor all the same.
      const challenge = {
        id: uuid(),
        factorId: stale[0]!.id,
        ip: null,
        codeDigest: null,
        webauthn: null,
        createdAt: at("08-01"),
        verifiedAt: null,
      };
      await stores.factors.insertChallenge(challenge);

      await deletesInBatches("unverified_factors", cutoff, 3);

      for (const factor of stale) expect(await stores.factors.find(user.id, factor.id)).toBeNull();
      expect(await tx.run((s) => s.factors.lockChallenge(challenge.factorId, challenge.id))).toBeNull();
      expect(await stores.factors.find(user.id, verified.id)).toEqual(verified);
      expect(await stores.factors.find(user.id, young.id)).toEqual(young);
    });

    it("deletes OAuth authorization requests expiring before the cutoff, and no later one", async () => {
      const { at, cutoff } = era();
      const client = anOAuthClient();
      await stores.oauthClients.insert(client);
      const requestOf = (day: string) =>
        anOAuthAuthorization(client.id, { createdAt: at("01-01"), expiresAt: at(day) });
      const expired = ["02-01", "03-01", "04-01"].map(requestOf);
      const later = requestOf("07-01");
      for (const request of [...expired, later]) await stores.oauthAuthorizations.insert(request, at("01-01"));

      await deletesInBatches("oauth_authorizations", cutoff, 3);

      for (const request of expired) expect(await stores.oauthAuthorizations.lock(request.id)).toBeNull();
      expect(await stores.oauthAuthorizations.lock(later.id)).toEqual(later);
    });

    it("deletes passkey challenges expiring before the cutoff, and no later one", async () => {
      const { at, cutoff } = era();
      const challengeOf = (day: string): WebAuthnChallenge => ({
        id: uuid(),
        ceremony: "authentication",
        userId: null,
        sessionId: null,
        challenge: digest(),
        userVerification: "preferred",
        createdAt: at("01-01"),
        expiresAt: at(day),
      });
      const expired = ["02-01", "03-01", "04-01"].map(challengeOf);
      const later = challengeOf("07-01");
      for (const challenge of [...expired, later]) await stores.webauthnChallenges.insert(challenge, at("01-01"));

      await deletesInBatches("webauthn_challenges", cutoff, 3);

      for (const challenge of expired) {
        expect(await stores.webauthnChallenges.take(challenge.id, "authentication", null)).toBeNull();
      }
      expect(await stores.webauthnChallenges.take(later.id, "authentication", null)).toEqual(later);
    });

    it("forgets used id_tokens expiring before the cutoff, and no later one", async () => {
      const { at, cutoff } = era();
      const expired = ["02-01", "03-01", "04-01"].map((day) => ({ digest: digest(), expiresAt: at(day) }));
      const later = { digest: digest(), expiresAt: at("07-01") };
      for (const used of [...expired, later]) {
        expect(await stores.usedIdTokens.remember(used.digest, used.expiresAt, at("01-01"))).toBe(true);
      }

      await deletesInBatches("used_id_tokens", cutoff, 3);

      // Remembered again as new: forgotten. (At an instant none of them had expired by.)
      for (const used of expired)
        expect(await stores.usedIdTokens.remember(used.digest, used.expiresAt, at("01-01"))).toBe(true);
      expect(await stores.usedIdTokens.remember(later.digest, later.expiresAt, at("01-01"))).toBe(false);
    });

    it("deletes finished messages created before the cutoff, and none still due or being sent", async () => {
      const { at, cutoff } = era();
      const anEntry = (overrides: Partial<OutboxEntry>): OutboxEntry => ({
        id: uuid(),
        channel: "email",
        sealedMessage: null,
        createdAt: at("01-01"),
        nextAttemptAt: null,
        expiresAt: at("12-01"),
        attempts: 1,
        deliveredAt: null,
        lastError: null,
        ...overrides,
      });
      const finished = [
        anEntry({ createdAt: at("02-01"), deliveredAt: at("02-01") }),
        anEntry({ createdAt: at("03-01"), attempts: 5, lastError: "550 no such mailbox" }),
        anEntry({ createdAt: at("04-01"), deliveredAt: at("04-02") }),
      ];
      const finishedLater = anEntry({ createdAt: at("07-01"), deliveredAt: at("07-01") });
      const sealed = { sealedMessage: `sealed-${uuid()}`, attempts: 0 };
      const leased = anEntry({ ...sealed, nextAttemptAt: at("02-01") });
      const due = anEntry({ ...sealed, nextAttemptAt: at("03-01") });
      const retrying = anEntry({ ...sealed, attempts: 2, lastError: "421", nextAttemptAt: at("09-01") });
      for (const entry of [...finished, finishedLater, leased, due, retrying]) await stores.outbox.enqueue(entry);
      const claimed = await stores.outbox.claimDue({
        now: at("02-15"),
        limit: 10,
        leaseUntil: at("12-31"),
        claim: uuid(),
      });
      expect(claimed.map((entry) => entry.id)).toEqual([leased.id]);

      await deletesInBatches("finished_outbox", cutoff, 3);

      for (const entry of finished) expect(await subject.readOutbox(entry.id)).toBeNull();
      for (const entry of [finishedLater, leased, due, retrying])
        expect(await subject.readOutbox(entry.id)).toEqual(entry);
    });

    it("deletes anonymous users created before the cutoff with all that is theirs, and no other user", async () => {
      const { at, cutoff } = era();
      const anonymousUser = (day: string, overrides: Parameters<typeof aUser>[0] = {}) => {
        const id = uuid();
        const identity: Identity = {
          id: uuid(),
          userId: id,
          provider: "google",
          providerId: `anon-${id}`,
          identityData: { sub: `anon-${id}` },
          lastSignInAt: null,
          createdAt: at(day),
          updatedAt: at(day),
        };
        return aUser({
          id,
          email: null,
          isAnonymous: true,
          identities: [identity],
          createdAt: at(day),
          updatedAt: at(day),
          ...overrides,
        });
      };
      const stale = [
        anonymousUser("02-01"),
        // Soft-deleted: it goes all the same.
        anonymousUser("03-01", { deletedAt: at("03-02") }),
        anonymousUser("04-01"),
      ];
      const young = anonymousUser("07-01");
      const named = aUser({ createdAt: at("01-01"), updatedAt: at("01-01") });
      const everyone = [...stale, young, named];
      const belongings = new Map<string, { session: Session; tokenHash: string; factorId: string }>();
      for (const user of everyone) {
        await stores.users.insert(user);
        const session = aSession(user.id, { createdAt: at("08-01") });
        const token = await storeSession(stores, session, aRefreshToken(session.id, { createdAt: at("08-01") }));
        const factor = aFactor(user.id);
        await stores.factors.insert(factor);
        await stores.oneTimeTokens.replace(anOtt(user.id, { createdAt: at("08-01") }));
        belongings.set(user.id, { session, tokenHash: token.tokenHash, factorId: factor.id });
      }

      await deletesInBatches("anonymous_users", cutoff, 3);

      for (const user of stale) {
        const { session, tokenHash, factorId } = belongings.get(user.id)!;
        expect(await stores.users.findById(user.id)).toBeNull();
        expect(await stores.identities.find("google", user.identities[0]!.providerId)).toBeNull();
        expect(await sessionOf(session)).toBeNull();
        expect(await tokenExists(tokenHash)).toBe(false);
        expect(await stores.factors.find(user.id, factorId)).toBeNull();
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).toBeNull();
      }
      for (const user of [young, named]) {
        const { session, tokenHash, factorId } = belongings.get(user.id)!;
        expect((await stores.users.findById(user.id))?.id).toBe(user.id);
        expect(await stores.identities.find(user.identities[0]!.provider, user.identities[0]!.providerId)).toEqual(
          user.identities[0],
        );
        expect(await sessionOf(session)).not.toBeNull();
        expect(await tokenExists(tokenHash)).toBe(true);
        expect(await stores.factors.find(user.id, factorId)).not.toBeNull();
        expect(await stores.oneTimeTokens.findByUser(user.id, "confirmation")).not.toBeNull();
      }
    });
  });
}
