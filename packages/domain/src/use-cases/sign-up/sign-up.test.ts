import { describe, expect, it } from "vitest";
import type { Stores, Transactor } from "../../ports/stores.ts";
import { linkTokenDigest, otpDigest } from "../../services/tokens/digests.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { createTestSecrets } from "../../testing/test-secrets.ts";

const password = "correct horse";

describe("sign up with email and password", () => {
  it("creates an unconfirmed user, stores the confirmation token hashed and mails it", async () => {
    const { auth, lastEmail, stores } = createTestAuth();
    const result = await auth.signUp({
      email: "New@Example.com",
      password,
      data: { name: "Ada", sub: "spoofed" },
      context,
    });

    expect(result.kind).toBe("user");
    const user = result.kind === "user" ? result.user : undefined;
    expect(user?.email).toBe("new@example.com");
    expect(user?.emailConfirmedAt).toBeNull();
    expect(user?.confirmationSentAt).toBeInstanceOf(Date);
    expect(user?.role).toBe("authenticated");
    expect(user?.aud).toBe("authenticated");
    expect(user?.appMetadata).toEqual({ provider: "email", providers: ["email"] });
    expect(user?.userMetadata).toEqual({
      name: "Ada",
      sub: user?.id,
      email: "new@example.com",
      email_verified: false,
      phone_verified: false,
    });
    expect(user?.identities).toHaveLength(1);
    expect(user?.identities[0]).toMatchObject({ provider: "email", providerId: user?.id });

    const email = await lastEmail("new@example.com", "confirmation");
    expect(email).toMatchObject({ linkType: "signup", redirectTo: "http://localhost:3000", data: user?.userMetadata });
    expect(email?.otp).toMatch(/^\d{6}$/);
    const stored = await stores.oneTimeTokens.findByUser(user!.id, "confirmation");
    const secrets = createTestSecrets();
    expect(stored?.linkTokenHash).toBe(linkTokenDigest(secrets, email!.linkToken));
    expect(stored?.otpHash).toBe(otpDigest(secrets, "new@example.com", email!.otp));
    expect(JSON.stringify(stored)).not.toContain(email!.linkToken);
  });

  it("signs the user in at once with MAILER_AUTOCONFIRM", async () => {
    const { auth, emails, stores } = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    const result = await auth.signUp({ email: "auto@example.com", password, context });

    expect(result.kind).toBe("session");
    if (result.kind !== "session") return;
    expect(result.grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(result.grant.user.userMetadata).toMatchObject({ email_verified: true });
    expect(result.grant.user.identities[0]?.identityData).toMatchObject({ email_verified: true });
    expect(result.grant.session.amr.map((entry) => entry.method)).toEqual(["password"]);
    expect(result.grant.expiresIn).toBe(3600);
    expect(await emails()).toHaveLength(0);
    const saved = await stores.users.findById(result.grant.user.id);
    expect(saved?.lastSignInAt).toBeInstanceOf(Date);
  });

  it("honours the requested audience and JWT_DEFAULT_GROUP_NAME", async () => {
    const { auth } = createTestAuth({ policy: { defaultRole: "member", signup: { emailAutoconfirm: true } } });
    const result = await auth.signUp({ email: "aud@example.com", password, audience: "app", context });
    expect(result.kind === "session" && [result.grant.user.aud, result.grant.user.role]).toEqual(["app", "member"]);
  });

  it("refuses by the policy: disabled signups, disabled providers, both addresses, no or weak password", async () => {
    await failsWith(
      "signup_disabled",
      createTestAuth({ policy: { signup: { disabled: true } } }).auth.signUp({ email: "a@b.co", password, context }),
    );
    await failsWith(
      "email_provider_disabled",
      createTestAuth({ policy: { signup: { emailEnabled: false } } }).auth.signUp({
        email: "a@b.co",
        password,
        context,
      }),
    );
    await failsWith(
      "phone_provider_disabled",
      createTestAuth({ policy: { signup: { phoneEnabled: false } } }).auth.signUp({
        phone: "+15550001",
        password,
        context,
      }),
    );
    const { auth, stores } = createTestAuth();
    await failsWith("validation_failed", auth.signUp({ email: "a@b.co", phone: "+15550001", password, context }));
    await failsWith("validation_failed", auth.signUp({ email: "a@b.co", context }));
    await failsWith("validation_failed", auth.signUp({ email: "not an email", password, context }));
    const weak = await failsWith("weak_password", auth.signUp({ email: "a@b.co", password: "12345", context }));
    expect(weak.details).toEqual({ reasons: ["length"] });
    expect(await stores.users.findByEmail("a@b.co")).toBeNull();
  });

  it("signs up by phone in E.164 and texts the code", async () => {
    const { auth, lastSms } = createTestAuth();
    const result = await auth.signUp({ phone: "1 555-010-2000", password, context });
    expect(result.kind === "user" && result.user.phone).toBe("+15550102000");
    expect(result.kind === "user" && result.user.userMetadata).toMatchObject({
      phone: "+15550102000",
      phone_verified: false,
    });
    expect(await lastSms("+15550102000")).toMatchObject({
      kind: "confirmation",
      otp: expect.stringMatching(/^\d{6}$/),
    });
  });
});

describe("sign up twice with one address", () => {
  it("answers a confirmed account with a fabricated user that reveals nothing, after the same hashing work", async () => {
    const { auth, stores, emails, hasher } = createTestAuth();
    const owner = aUser({
      email: "taken@example.com",
      userMetadata: { secret: "owner's" },
      recoverySentAt: new Date(),
    });
    await stores.users.insert(owner);

    const result = await auth.signUp({ email: "Taken@example.com", password, data: { name: "Mallory" }, context });
    expect(result.kind).toBe("user");
    if (result.kind !== "user") return;
    expect(result.user.id).not.toBe(owner.id);
    expect(result.user.identities).toEqual([]);
    expect(result.user.role).toBe("");
    expect(result.user.email).toBe("taken@example.com");
    expect(result.user.userMetadata).toEqual({ name: "Mallory" });
    expect(result.user.appMetadata).toEqual({ provider: "email", providers: ["email"] });
    expect(result.user.recoverySentAt).toBeNull();
    expect(result.user.emailConfirmedAt).toBeNull();
    expect(result.user.confirmationSentAt).toBeInstanceOf(Date);
    expect(hasher.hashes).toBe(1);
    expect(await emails()).toHaveLength(0);
    expect(await stores.users.findByEmail("taken@example.com")).toEqual(owner);
  });

  it("takes as long to answer a duplicate as real signups have been taking", async () => {
    const testAuth = createTestAuth();
    const { clock, stores } = testAuth;
    // Every statement of a transaction "takes" 10 ms: a real signup runs more of them than a duplicate does.
    const slowly = (inner: Stores): Stores =>
      Object.fromEntries(
        Object.entries(inner).map(([name, store]) => [
          name,
          Object.fromEntries(
            Object.entries(store as Record<string, (...args: unknown[]) => Promise<unknown>>).map(([method, call]) => [
              method,
              (...args: unknown[]) => {
                clock.advance({ milliseconds: 10 });
                return call(...args);
              },
            ]),
          ),
        ]),
      ) as unknown as Stores;
    const tx: Transactor = { run: (work) => testAuth.ports.tx.run((inner) => work(slowly(inner))) };
    const { auth } = createTestAuth({ ports: { ...testAuth.ports, tx } });
    await stores.users.insert(aUser({ email: "confirmed@example.com" }));

    const beforeReal = clock.now().getTime();
    await auth.signUp({ email: "first@example.com", password, context });
    const real = clock.now().getTime() - beforeReal;
    const beforeFake = clock.now().getTime();
    const fake = await auth.signUp({ email: "confirmed@example.com", password, context });
    expect(fake.kind === "user" && fake.user.identities).toEqual([]);
    expect(real).toBeGreaterThan(10);
    expect(clock.now().getTime() - beforeFake).toBe(real);
  });

  it("answers user_already_exists where the channel autoconfirms, a phone its own case (GoTrue answers it with another status)", async () => {
    const { auth, stores } = createTestAuth({ policy: { signup: { phoneAutoconfirm: true } } });
    await stores.users.insert(aUser({ email: "dup@example.com", phone: "+15550103000", phoneConfirmedAt: new Date() }));
    const byPhone = await failsWith("user_already_exists", auth.signUp({ phone: "+15550103000", password, context }));
    expect(byPhone.message).toBe("User already registered");
    expect(byPhone.case).toBe("phone_already_registered");
    // Email still needs confirmation here, so a duplicate email is answered as if it were new.
    const byEmail = await auth.signUp({ email: "dup@example.com", password, context });
    expect(byEmail.kind === "user" && byEmail.user.identities).toEqual([]);

    const { auth: emailAuto, stores: emailStores } = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    await emailStores.users.insert(aUser({ email: "dup@example.com" }));
    const duplicate = await failsWith(
      "user_already_exists",
      emailAuto.signUp({ email: "dup@example.com", password, context }),
    );
    expect(duplicate.case).toBeUndefined();
  });

  it("sends an unconfirmed account its confirmation again, no more often than SMTP_MAX_FREQUENCY, changing nothing else", async () => {
    const { auth, stores, emails, clock } = createTestAuth();
    const first = await auth.signUp({ email: "pending@example.com", password, data: { v: 1 }, context });
    const original = await stores.users.findById(first.kind === "user" ? first.user.id : "");

    clock.advance({ seconds: 60 });
    const tooSoon = await failsWith(
      "over_email_send_rate_limit",
      auth.signUp({ email: "pending@example.com", password: "other password", context }),
    );
    expect(tooSoon.message).toBe("For security purposes, you can only request this after 840 seconds.");
    expect(tooSoon.retryAfterSeconds).toBe(840);

    clock.advance({ seconds: 840 });
    const again = await auth.signUp({
      email: "pending@example.com",
      password: "other password",
      data: { v: 2 },
      context,
    });
    // The account's id, as GoTrue answers, and otherwise only what this request sent.
    expect(again.kind === "user" && again.user).toMatchObject({
      id: original?.id,
      userMetadata: { v: 2 },
      email: "pending@example.com",
    });
    expect(await emails()).toHaveLength(2);
    const saved = await stores.users.findById(original!.id);
    expect(saved?.passwordHash).toBe(original?.passwordHash);
    expect(saved?.userMetadata).toEqual(original?.userMetadata);
    expect(saved?.confirmationSentAt).toEqual(clock.now());
  });

  it("with autoconfirm on, signs in an unconfirmed account only for the one who knows its password", async () => {
    const testAuth = createTestAuth();
    const { stores, hasher } = testAuth;
    const pending = aUser({
      email: "late@example.com",
      emailConfirmedAt: null,
      passwordHash: await hasher.hash(password),
    });
    await stores.users.insert(pending);
    const { auth: autoconfirming } = createTestAuth({
      policy: { signup: { emailAutoconfirm: true } },
      ports: { stores, tx: testAuth.ports.tx, hasher },
    });

    await failsWith(
      "user_already_exists",
      autoconfirming.signUp({ email: "late@example.com", password: "guess-guess", context }),
    );
    expect((await stores.users.findById(pending.id))?.emailConfirmedAt).toBeNull();

    const result = await autoconfirming.signUp({ email: "late@example.com", password, context });
    expect(result.kind === "session" && result.grant.user.id).toBe(pending.id);
    expect((await stores.users.findById(pending.id))?.emailConfirmedAt).toBeInstanceOf(Date);
  });

  it("with autoconfirm on, does not sign in a banned unconfirmed account", async () => {
    const testAuth = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    const banned = aUser({
      email: "banned-late@example.com",
      emailConfirmedAt: null,
      passwordHash: await testAuth.hasher.hash(password),
      bannedUntil: new Date("2099-01-01T00:00:00Z"),
    });
    await testAuth.stores.users.insert(banned);
    await failsWith("user_banned", testAuth.auth.signUp({ email: "banned-late@example.com", password, context }));
    expect((await testAuth.stores.users.findById(banned.id))?.emailConfirmedAt).toBeNull();
  });

  it("creates exactly one user when twenty signups race for one address", async () => {
    const { auth, stores } = createTestAuth({ policy: { signup: { emailAutoconfirm: true } } });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => auth.signUp({ email: "race@example.com", password, context })),
    );
    const granted = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(granted).toHaveLength(1);
    for (const outcome of refused)
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: "user_already_exists" });
    expect((await stores.users.findByEmail("race@example.com"))?.email).toBe("race@example.com");
  });
});

describe("anonymous sign up", () => {
  it("is refused unless EXTERNAL_ANONYMOUS_USERS_ENABLED", async () => {
    await failsWith("anonymous_provider_disabled", createTestAuth().auth.signUp({ context }));
  });

  it("creates an anonymous user without identities and signs it in", async () => {
    const { auth } = createTestAuth({ policy: { signup: { anonymousEnabled: true } } });
    const result = await auth.signUp({ data: { theme: "dark" }, context });
    expect(result.kind).toBe("session");
    if (result.kind !== "session") return;
    expect(result.grant.user).toMatchObject({
      isAnonymous: true,
      email: null,
      phone: null,
      appMetadata: {},
      userMetadata: { theme: "dark" },
    });
    expect(result.grant.user.identities).toEqual([]);
    expect(result.grant.session.amr[0]?.method).toBe("anonymous");
  });
});
