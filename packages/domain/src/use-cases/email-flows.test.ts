import { describe, expect, it } from "vitest";
import { aUser } from "../testing/builders.ts";
import { createTestAuth, type TestAuthOptions } from "../testing/create-test-auth.ts";
import { context, failsWith } from "../testing/fails-with.ts";

const password = "secret-password";

async function withConfirmedUser(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({ email: "known@example.com", passwordHash: await testAuth.hasher.hash(password) });
  await testAuth.stores.users.insert(user);
  return { ...testAuth, user };
}

describe("magic links", () => {
  it("mail a confirmed user a link that signs in, and record when", async () => {
    const { auth, lastEmail, stores, user } = await withConfirmedUser();
    await auth.sendMagicLink({ email: "Known@example.com", createUser: true, context });
    const mail = (await lastEmail("known@example.com", "magic_link"))!;
    expect(mail).toMatchObject({ linkType: "magiclink", redirectTo: "http://localhost:3000" });
    expect((await stores.users.findById(user.id))?.recoverySentAt).toBeInstanceOf(Date);
    const result = await auth.verify({
      type: "magiclink",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind === "session" && result.grant.session.amr[0]?.method).toBe("otp");
  });

  it("sign up an unknown address with its confirmation, whose code signs in as type email", async () => {
    const { auth, lastEmail, stores } = createTestAuth();
    await auth.sendMagicLink({ email: "fresh@example.com", createUser: true, data: { plan: "free" }, context });
    const created = (await stores.users.findByEmail("fresh@example.com"))!;
    // The data waits with the confirmation until the address is proven.
    expect(created).toMatchObject({ passwordHash: null, emailConfirmedAt: null });
    expect(created.userMetadata).not.toHaveProperty("plan");
    const mail = (await lastEmail("fresh@example.com", "confirmation"))!;
    expect(mail.data).toMatchObject({ plan: "free" });
    const result = await auth.verify({
      type: "email",
      proof: { email: "fresh@example.com", code: mail.otp },
      followedLink: false,
      context,
    });
    expect(result.kind === "session" && result.grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(result.kind === "session" && result.grant.user.userMetadata).toMatchObject({
      plan: "free",
      email_verified: true,
    });
  });

  it("when no account may be created, refuse an unknown address as GoTrue does, and create and send nothing", async () => {
    const { auth, emails, stores } = await withConfirmedUser();
    const refused = await failsWith(
      "otp_disabled",
      auth.sendMagicLink({ email: "stranger@example.com", createUser: false, context }),
    );
    expect(refused.message).toBe("Signups not allowed for otp");
    expect(await stores.users.findByEmail("stranger@example.com")).toBeNull();
    expect(await emails()).toEqual([]);
    const disabled = createTestAuth({ policy: { signup: { disabled: true } } });
    await failsWith(
      "signup_disabled",
      disabled.auth.sendMagicLink({ email: "stranger@example.com", createUser: true, context }),
    );
    expect(await disabled.emails()).toEqual([]);
    // A refused address spends no sign-in mail: once it has an account, its first one goes.
    await disabled.stores.users.insert(aUser({ email: "stranger@example.com" }));
    await disabled.auth.sendMagicLink({ email: "stranger@example.com", createUser: false, context });
  });

  it("limit each address, known or to be created, to one mail per minute, with the seconds to wait", async () => {
    const { auth, clock } = await withConfirmedUser();
    for (const email of ["known@example.com", "stranger@example.com"]) {
      await auth.sendMagicLink({ email, createUser: true, context });
      const error = await failsWith(
        "over_email_send_rate_limit",
        auth.sendMagicLink({ email, createUser: true, context }),
      );
      expect(error.message).toBe("For security purposes, you can only request this after 60 seconds.");
      expect(error.retryAfterSeconds).toBe(60);
    }
    clock.advance({ seconds: 60 });
    await auth.sendMagicLink({ email: "known@example.com", createUser: false, context });
  });

  it("honour EXTERNAL_EMAIL_MAGIC_LINK_ENABLED", async () => {
    const { auth } = createTestAuth({ policy: { email: { magicLinkEnabled: false } } });
    await failsWith(
      "email_provider_disabled",
      auth.sendMagicLink({ email: "a@example.com", createUser: true, context }),
    );
  });

  it("lead where redirect_to asks only when it is allowed", async () => {
    const { auth, lastEmail } = await withConfirmedUser({
      policy: { redirect: { allowList: ["https://app.example.com/**"] } },
    });
    await auth.sendMagicLink({
      email: "known@example.com",
      createUser: false,
      redirectTo: ["https://evil.example.net/x"],
      context,
    });
    expect((await lastEmail("known@example.com", "magic_link"))?.redirectTo).toBe("http://localhost:3000");
    const { auth: other, lastEmail: otherMail } = await withConfirmedUser({
      policy: { redirect: { allowList: ["https://app.example.com/**"] } },
    });
    await other.sendMagicLink({
      email: "known@example.com",
      createUser: false,
      redirectTo: [undefined, "https://app.example.com/welcome?x=1"],
      context,
    });
    expect((await otherMail("known@example.com", "magic_link"))?.redirectTo).toBe(
      "https://app.example.com/welcome?x=1",
    );
  });
});

describe("password recovery", () => {
  it("mails a known address a link that signs in with a recovery session, then lets the password change", async () => {
    const { auth, lastEmail, stores, user } = await withConfirmedUser();
    await auth.recoverPassword({ email: "known@example.com", context });
    const mail = (await lastEmail("known@example.com", "recovery"))!;
    const result = await auth.verify({
      type: "recovery",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    if (result.kind !== "session") throw new Error("expected a session");
    expect(result.grant.session.amr[0]?.method).toBe("otp");
    const principal = await auth.authenticate({ accessToken: result.grant.accessToken });
    await auth.updateUser({ principal, password: "the new password", context });
    expect(
      (await auth.signInWithPassword({ email: "known@example.com", password: "the new password", context })).user.id,
    ).toBe(user.id);
    expect((await stores.auditLog.list({ page: 1, perPage: 50 })).entries.map((entry) => entry.action)).toContain(
      "user_recovery_requested",
    );
  });

  it("answers an unknown address alike and sends nothing", async () => {
    const { auth, emails } = await withConfirmedUser();
    await expect(auth.recoverPassword({ email: "nobody@example.com", context })).resolves.toBeUndefined();
    await failsWith("over_email_send_rate_limit", auth.recoverPassword({ email: "nobody@example.com", context }));
    expect(await emails()).toEqual([]);
  });

  it("takes as long for an unknown address as it has been taking for known ones", async () => {
    const testAuth = await withConfirmedUser();
    const { clock, ports } = testAuth;
    // Known recoveries "spend" 25 ms in their transaction here.
    const tx = {
      run: <T>(work: Parameters<typeof ports.tx.run<T>>[0]) =>
        ports.tx.run(async (stores) => {
          clock.advance({ milliseconds: 25 });
          return work(stores);
        }),
    };
    const { auth } = createTestAuth({ ports: { ...ports, tx } });
    await auth.recoverPassword({ email: "known@example.com", context });
    const before = clock.now().getTime();
    await auth.recoverPassword({ email: "nobody@example.com", context });
    expect(clock.now().getTime() - before).toBe(25);
  });

  it("needs an email", async () => {
    const { auth } = createTestAuth();
    await failsWith("validation_failed", auth.recoverPassword({ email: "", context }));
  });
});

describe("resend", () => {
  it("sends a pending signup its confirmation again, and answers the message id", async () => {
    const { auth, clock, emails } = createTestAuth();
    await auth.signUp({ email: "pending@example.com", password, context });
    clock.advance({ seconds: 900 });
    const { messageId } = await auth.resend({ type: "signup", email: "pending@example.com", context });
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await emails()).filter((mail) => mail.to === "pending@example.com")).toHaveLength(2);
  });

  it("answers a message id and sends nothing when there is nothing to resend", async () => {
    const { auth, emails } = await withConfirmedUser();
    expect((await auth.resend({ type: "signup", email: "known@example.com", context })).messageId).toMatch(
      /^[0-9a-f-]{36}$/,
    );
    expect((await auth.resend({ type: "signup", email: "nobody@example.com", context })).messageId).toMatch(
      /^[0-9a-f-]{36}$/,
    );
    expect((await auth.resend({ type: "email_change", email: "known@example.com", context })).messageId).toMatch(
      /^[0-9a-f-]{36}$/,
    );
    expect(await emails()).toEqual([]);
  });

  it("sends the confirmations of a pending email change again", async () => {
    const { auth, user, emails, clock } = await withConfirmedUser();
    const grant = await auth.signInWithPassword({ email: "known@example.com", password, context });
    await auth.updateUser({
      principal: await auth.authenticate({ accessToken: grant.accessToken }),
      email: "moved@example.com",
      context,
    });
    clock.advance({ seconds: 901 });
    await auth.resend({ type: "email_change", email: user.email!, context });
    expect(
      (await emails())
        .filter((mail) => mail.kind === "email_change")
        .map((mail) => mail.to)
        .sort(),
    ).toEqual(["known@example.com", "known@example.com", "moved@example.com", "moved@example.com"]);
  });

  it("checks its request", async () => {
    const { auth } = createTestAuth();
    await failsWith("validation_failed", auth.resend({ type: "magic", email: "a@example.com", context }));
    await failsWith("validation_failed", auth.resend({ type: "signup", context }));
    await failsWith(
      "validation_failed",
      auth.resend({ type: "signup", email: "a@example.com", phone: "+15550100", context }),
    );
  });
});

describe("reauthentication", () => {
  it("mails a nonce that lets a password change through when one is required", async () => {
    const { auth, lastEmail } = await withConfirmedUser({ policy: { passwordChangeRequiresReauthentication: true } });
    const grant = await auth.signInWithPassword({ email: "known@example.com", password, context });
    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    expect(await auth.reauthenticate({ principal, context })).toEqual({ messageId: null });
    const mail = (await lastEmail("known@example.com", "reauthentication"))!;
    expect(mail.otp).toMatch(/^\d{6}$/);
    await failsWith("reauthentication_needed", auth.updateUser({ principal, password: "another secret", context }));
    await auth.updateUser({ principal, password: "another secret", nonce: mail.otp, context });
  });

  it("lets a nonce be asked for again after a minute, not a quarter of an hour", async () => {
    const { auth, clock } = await withConfirmedUser();
    const grant = await auth.signInWithPassword({ email: "known@example.com", password, context });
    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    await auth.reauthenticate({ principal, context });
    await failsWith("over_email_send_rate_limit", auth.reauthenticate({ principal, context }));
    clock.advance({ seconds: 60 });
    await auth.reauthenticate({ principal, context });
  });

  it("refuses an unconfirmed address, and a user without any", async () => {
    const { auth, stores, hasher } = createTestAuth();
    const unconfirmed = aUser({
      email: "u@example.com",
      emailConfirmedAt: null,
      passwordHash: await hasher.hash(password),
    });
    await stores.users.insert(unconfirmed);
    const principal = { user: unconfirmed, session: null, claims: {} };
    await failsWith("email_not_confirmed", auth.reauthenticate({ principal, context }));
    await failsWith(
      "validation_failed",
      auth.reauthenticate({ principal: { ...principal, user: { ...unconfirmed, email: null } }, context }),
    );
  });
});

describe("invitations", () => {
  const admin = { role: "service_role", userId: null, claims: {} };

  it("create the account without a password and mail a link that confirms it and signs in", async () => {
    const { auth, lastEmail } = createTestAuth();
    const invited = await auth.inviteUser({ admin, email: "Invitee@example.com", data: { team: "blue" }, context });
    expect(invited).toMatchObject({ email: "invitee@example.com", passwordHash: null, userMetadata: { team: "blue" } });
    expect(invited.invitedAt).toBeInstanceOf(Date);
    expect(invited.confirmationSentAt).toBeInstanceOf(Date);
    const mail = (await lastEmail("invitee@example.com", "invite"))!;
    const result = await auth.verify({
      type: "invite",
      proof: { linkToken: mail.linkToken },
      followedLink: true,
      context,
    });
    expect(result.kind === "session" && result.grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(result.kind === "session" && result.grant.session.amr[0]?.method).toBe("otp");
  });

  it("refuse a confirmed account, and invite an unconfirmed one again", async () => {
    const { auth, stores, lastEmail } = await withConfirmedUser();
    await failsWith("email_exists", auth.inviteUser({ admin, email: "known@example.com", context }));
    await stores.users.insert(aUser({ email: "waiting@example.com", emailConfirmedAt: null }));
    await auth.inviteUser({ admin, email: "waiting@example.com", context });
    expect(await lastEmail("waiting@example.com", "invite")).toBeDefined();
  });
});

describe("admin authorization", () => {
  it("admits tokens whose role is an admin role, and no others", async () => {
    const { auth, ports } = createTestAuth();
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const service = await ports.signer.sign({ role: "service_role", exp: exp + 1e9 });
    expect(await auth.authorizeAdmin({ accessToken: service })).toMatchObject({ role: "service_role", userId: null });
    await failsWith(
      "not_admin",
      auth.authorizeAdmin({ accessToken: await ports.signer.sign({ role: "authenticated", exp: exp + 1e9 }) }),
    );
    await failsWith("bad_jwt", auth.authorizeAdmin({ accessToken: "nope" }));
  });
});

describe("RATE_LIMIT_EMAIL_SENT", () => {
  it("stops sending past the hourly quota of all emails together, with GoTrue's 429", async () => {
    const { auth, clock } = createTestAuth({ policy: { email: { sendLimit: { events: 2, perSeconds: 3600 } } } });
    await auth.signUp({ email: "one@example.com", password, context });
    await auth.sendMagicLink({ email: "two@example.com", createUser: true, context });
    const error = await failsWith(
      "over_email_send_rate_limit",
      auth.signUp({ email: "three@example.com", password, context }),
    );
    expect(error.message).toBe("email rate limit exceeded");
    expect(error.retryAfterSeconds).toBe(3600);
    clock.advance({ hours: 1 });
    await auth.signUp({ email: "three@example.com", password, context });
  });

  it("is spent only by mail sent: requests for addresses nobody has cannot stop everyone's mail", async () => {
    const { auth, lastEmail } = await withConfirmedUser({
      policy: { email: { sendLimit: { events: 2, perSeconds: 3600 } } },
    });
    // From addresses the attacker rotates through, past every per-client limit.
    for (let i = 0; i < 40; i++) {
      const from = { ip: `198.51.100.${i}`, userAgent: "curl" };
      await auth.recoverPassword({ email: `nobody-${i}@example.com`, context: from });
      await auth.resend({ type: "signup", email: `nobody-${i}@example.com`, context: from });
      await auth.resend({ type: "email_change", email: `nobody-${i}@example.com`, context: from });
    }
    await auth.recoverPassword({ email: "known@example.com", context });
    expect(await lastEmail("known@example.com", "recovery")).toBeDefined();
    await auth.signUp({ email: "new@example.com", password, context });
    expect(await lastEmail("new@example.com", "confirmation")).toBeDefined();
  });

  it("once spent, refuses alike whether the address would have been mailed or not, so running out tells nothing", async () => {
    const { auth, emails } = await withConfirmedUser({
      policy: { email: { sendLimit: { events: 1, perSeconds: 3600 } } },
    });
    await auth.signUp({ email: "spends@example.com", password, context });
    for (const email of ["known@example.com", "nobody@example.com"]) {
      await failsWith("over_email_send_rate_limit", auth.recoverPassword({ email, context }));
      await failsWith("over_email_send_rate_limit", auth.sendMagicLink({ email, createUser: true, context }));
      await failsWith("over_email_send_rate_limit", auth.resend({ type: "signup", email, context }));
    }
    expect((await emails()).map((mail) => mail.to)).toEqual(["spends@example.com"]);
  });

  it("never holds back a notification of a change already made", async () => {
    const limited = {
      email: { sendLimit: { events: 1, perSeconds: 3600 }, notifications: { password_changed: true } },
    };
    const { auth, emails } = await withConfirmedUser({ policy: limited });
    const grant = await auth.signInWithPassword({ email: "known@example.com", password, context });
    await auth.recoverPassword({ email: "known@example.com", context });
    await auth.updateUser({
      principal: await auth.authenticate({ accessToken: grant.accessToken }),
      password: "changed pw",
      context,
    });
    expect((await emails()).map((mail) => mail.kind)).toEqual(["recovery", "password_changed"]);
  });
});

describe("send frequency", () => {
  it("is one per address for a signup's confirmation, however it is asked for", async () => {
    const { auth, clock } = createTestAuth();
    await auth.signUp({ email: "pending@example.com", password, context });
    await failsWith(
      "over_email_send_rate_limit",
      auth.resend({ type: "signup", email: "pending@example.com", context }),
    );
    clock.advance({ seconds: 900 });
    await auth.resend({ type: "signup", email: "pending@example.com", context });
    await failsWith("over_email_send_rate_limit", auth.signUp({ email: "pending@example.com", password, context }));
  });

  it("refuses a second signup within the window alike for a confirmed account and an unknown address", async () => {
    const { auth } = await withConfirmedUser();
    for (const email of ["known@example.com", "fresh@example.com"]) {
      await auth.signUp({ email, password: "another password", context });
      await failsWith("over_email_send_rate_limit", auth.signUp({ email, password: "another password", context }));
    }
  });

  it("is one a minute per address for sign-in mails, magic link or recovery", async () => {
    const { auth, clock } = await withConfirmedUser();
    await auth.recoverPassword({ email: "known@example.com", context });
    await failsWith(
      "over_email_send_rate_limit",
      auth.sendMagicLink({ email: "known@example.com", createUser: false, context }),
    );
    clock.advance({ seconds: 60 });
    await auth.sendMagicLink({ email: "known@example.com", createUser: false, context });
    await failsWith("over_email_send_rate_limit", auth.recoverPassword({ email: "known@example.com", context }));
  });

  it("is one per address for an email change's confirmations, whether from PUT /user or /resend", async () => {
    const { auth, clock } = await withConfirmedUser();
    const grant = await auth.signInWithPassword({ email: "known@example.com", password, context });
    const principal = await auth.authenticate({ accessToken: grant.accessToken });
    await auth.updateUser({ principal, email: "moved@example.com", context });
    await failsWith(
      "over_email_send_rate_limit",
      auth.resend({ type: "email_change", email: "known@example.com", context }),
    );
    clock.advance({ seconds: 900 });
    await auth.resend({ type: "email_change", email: "known@example.com", context });
    await failsWith(
      "over_email_send_rate_limit",
      auth.updateUser({ principal, email: "elsewhere@example.com", context }),
    );
  });
});

describe("notifications", () => {
  it("tell of a password change only when MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED", async () => {
    for (const enabled of [false, true]) {
      const { auth, emails } = await withConfirmedUser({
        policy: { email: { notifications: { password_changed: enabled } } },
      });
      const grant = await auth.signInWithPassword({ email: "known@example.com", password, context });
      await auth.updateUser({
        principal: await auth.authenticate({ accessToken: grant.accessToken }),
        password: "changed pw",
        context,
      });
      expect((await emails()).filter((mail) => mail.kind === "password_changed")).toEqual(
        enabled ? [{ kind: "password_changed", to: "known@example.com" }] : [],
      );
    }
  });
});
