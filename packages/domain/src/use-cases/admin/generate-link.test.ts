import { describe, expect, it } from "vitest";
import type { Auth } from "../../auth.ts";
import type { AdminPrincipal } from "../../deps.ts";
import type { LinkEmail } from "../../model/mail.ts";
import { NO_USER_ID } from "../../services/audit.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";

const admin: AdminPrincipal = { role: "service_role", userId: null, claims: {} };
const password = "s3cret-pass";

/** Follows the link as a browser would (GET /verify?token=<linkToken>&type=<linkType>) and expects a session. */
async function follow(auth: Auth, email: LinkEmail) {
  const result = await auth.verify({
    type: email.linkType,
    proof: { linkToken: email.linkToken },
    followedLink: true,
    context,
  });
  if (result.kind !== "session") throw new Error(`expected a session, got ${result.kind}`);
  return result.grant;
}

/** A confirmed user known@example.com with a password. */
async function withKnownUser(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({ email: "known@example.com", passwordHash: await testAuth.hasher.hash(password) });
  await testAuth.stores.users.insert(user);
  return { ...testAuth, user };
}

const actions = async (testAuth: TestAuth) =>
  (await testAuth.stores.auditLog.list({ page: 1, perPage: 100 })).entries
    .reverse()
    .map((entry) => [entry.action, entry.traits["link_type"]]);

describe("admin: generate a signup link", () => {
  it("creates the user unconfirmed with the password, and the link confirms and signs in", async () => {
    const { auth, stores, emails } = createTestAuth();
    const link = await auth.admin.generateLink({
      admin,
      type: "signup",
      email: "New@Example.com",
      password,
      data: { plan: "pro" },
      context,
    });
    expect(link.verificationType).toBe("signup");
    expect(link.user).toMatchObject({ email: "new@example.com", emailConfirmedAt: null });
    // As GoTrue makes it: the admin's data alone is the user_metadata; the identity keeps its own keys only.
    expect(link.user.userMetadata).toEqual({ plan: "pro" });
    expect(link.user.identities[0]?.identityData).toEqual({
      sub: link.user.id,
      email: "new@example.com",
      email_verified: false,
      phone_verified: false,
    });
    expect(link.user.confirmationSentAt).toBeInstanceOf(Date);
    expect(link.email).toMatchObject({
      kind: "confirmation",
      linkType: "signup",
      to: "new@example.com",
      redirectTo: "http://localhost:3000",
    });
    expect(link.email.otp).toMatch(/^\d{6}$/);
    expect((await stores.users.findByEmail("new@example.com"))?.id).toBe(link.user.id);

    const grant = await follow(auth, link.email);
    expect(grant.user.id).toBe(link.user.id);
    expect(grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect((await auth.signInWithPassword({ email: "new@example.com", password, context })).user.id).toBe(link.user.id);
    expect(await emails()).toEqual([]);
  });

  it("keeps the password of a pending signup when asked again without one", async () => {
    const { auth } = createTestAuth();
    await auth.signUp({ email: "pending@example.com", password, context });
    const link = await auth.admin.generateLink({ admin, type: "signup", email: "pending@example.com", context });
    await follow(auth, link.email);
    expect((await auth.signInWithPassword({ email: "pending@example.com", password, context })).user.id).toBe(
      link.user.id,
    );
  });

  it("needs a password the policy accepts for an unknown address, and takes one only for signup", async () => {
    const { auth } = createTestAuth({ policy: { password: { minLength: 10 } } });
    await failsWith(
      "validation_failed",
      auth.admin.generateLink({ admin, type: "signup", email: "a@example.com", context }),
    );
    await failsWith(
      "weak_password",
      auth.admin.generateLink({ admin, type: "signup", email: "a@example.com", password: "short", context }),
    );
    for (const type of ["invite", "magiclink", "recovery", "email_change_new"]) {
      await failsWith(
        "validation_failed",
        auth.admin.generateLink({ admin, type, email: "a@example.com", password: "long enough!", context }),
      );
    }
    expect((await auth.admin.listUsers({})).total).toBe(0);
  });

  it("refuses an unknown type and a malformed address", async () => {
    const { auth } = createTestAuth();
    await failsWith(
      "validation_failed",
      auth.admin.generateLink({ admin, type: "email_change", email: "a@example.com", context }),
    );
    await failsWith(
      "validation_failed",
      auth.admin.generateLink({ admin, type: "signup", email: "not an address", password, context }),
    );
  });

  it("refuses signup and invite for a confirmed address", async () => {
    const { auth } = await withKnownUser();
    await failsWith(
      "email_exists",
      auth.admin.generateLink({ admin, type: "signup", email: "KNOWN@example.com", password, context }),
    );
    await failsWith(
      "email_exists",
      auth.admin.generateLink({ admin, type: "invite", email: "known@example.com", context }),
    );
  });

  it("issues an address awaiting confirmation a new link, whose password it gets", async () => {
    const { auth, stores } = createTestAuth();
    await auth.signUp({ email: "waiting@example.com", password: "first choice", context });
    const link = await auth.admin.generateLink({
      admin,
      type: "signup",
      email: "waiting@example.com",
      password,
      context,
    });
    expect((await auth.admin.listUsers({})).total).toBe(1);
    await follow(auth, link.email);
    expect((await auth.signInWithPassword({ email: "waiting@example.com", password, context })).user.id).toBe(
      link.user.id,
    );
    expect((await stores.users.findById(link.user.id))?.emailConfirmedAt).toBeInstanceOf(Date);
  });
});

describe("admin: generate other links", () => {
  it("invite: creates an invited user without a password, whose link confirms and signs in", async () => {
    const { auth, emails } = createTestAuth();
    const link = await auth.admin.generateLink({
      admin,
      type: "invite",
      email: "invitee@example.com",
      data: { team: "blue" },
      context,
    });
    expect(link).toMatchObject({
      verificationType: "invite",
      email: { kind: "invite", linkType: "invite", to: "invitee@example.com" },
    });
    expect(link.user).toMatchObject({ passwordHash: null, emailConfirmedAt: null, userMetadata: { team: "blue" } });
    expect(link.user.invitedAt).toBeInstanceOf(Date);
    const grant = await follow(auth, link.email);
    expect(grant.user.emailConfirmedAt).toBeInstanceOf(Date);
    expect(grant.session.amr[0]?.method).toBe("otp");
    expect(await emails()).toEqual([]);
  });

  it("magiclink to an unknown address signs it up instead, and the link signs in", async () => {
    const { auth } = createTestAuth();
    const link = await auth.admin.generateLink({ admin, type: "magiclink", email: "stranger@example.com", context });
    expect(link.verificationType).toBe("signup");
    expect(link.email).toMatchObject({ kind: "confirmation", linkType: "signup" });
    expect(link.user).toMatchObject({ email: "stranger@example.com", passwordHash: null, emailConfirmedAt: null });
    expect((await follow(auth, link.email)).user.id).toBe(link.user.id);
  });

  it("magiclink and recovery to a known address sign it in", async () => {
    const { auth, user, emails } = await withKnownUser();
    const magic = await auth.admin.generateLink({ admin, type: "magiclink", email: "known@example.com", context });
    expect(magic).toMatchObject({
      verificationType: "magiclink",
      email: { kind: "magic_link", linkType: "magiclink" },
    });
    expect(magic.user.recoverySentAt).toBeInstanceOf(Date);
    expect((await follow(auth, magic.email)).session.amr[0]?.method).toBe("otp");

    const recovery = await auth.admin.generateLink({ admin, type: "recovery", email: "known@example.com", context });
    expect(recovery).toMatchObject({ verificationType: "recovery", email: { kind: "recovery", linkType: "recovery" } });
    const grant = await follow(auth, recovery.email);
    expect(grant.user.id).toBe(user.id);
    expect(grant.session.amr[0]?.method).toBe("otp");
    expect(await emails()).toEqual([]);
  });

  it("recovery and email changes need an existing user", async () => {
    const { auth } = createTestAuth({ policy: { email: { secureEmailChange: true } } });
    for (const type of ["recovery", "email_change_new", "email_change_current"]) {
      const work = auth.admin.generateLink({
        admin,
        type,
        email: "nobody@example.com",
        newEmail: "x@example.com",
        context,
      });
      await failsWith("user_not_found", work);
    }
  });

  it("a code works as well as the link, verified with the link's type", async () => {
    const { auth } = await withKnownUser();
    const signup = await auth.admin.generateLink({
      admin,
      type: "signup",
      email: "coded@example.com",
      password,
      context,
    });
    const code = { email: signup.email.to, code: signup.email.otp };
    const signedUp = await auth.verify({ type: signup.email.linkType, proof: code, followedLink: false, context });
    expect(signedUp.kind === "session" && signedUp.grant.user.emailConfirmedAt).toBeInstanceOf(Date);

    const recovery = await auth.admin.generateLink({ admin, type: "recovery", email: "known@example.com", context });
    const recovered = await auth.verify({
      type: "recovery",
      proof: { email: "known@example.com", code: recovery.email.otp },
      followedLink: false,
      context,
    });
    expect(recovered.kind).toBe("session");
    // Used once: neither the code nor the link works again.
    await failsWith(
      "otp_expired",
      auth.verify({ type: "recovery", proof: { linkToken: recovery.email.linkToken }, followedLink: true, context }),
    );
  });

  it("leads where redirect_to asks only when it is allowed, else to SITE_URL", async () => {
    const { auth } = await withKnownUser({ policy: { redirect: { allowList: ["https://app.example.com/**"] } } });
    const refused = await auth.admin.generateLink({
      admin,
      type: "magiclink",
      email: "known@example.com",
      redirectTo: ["https://evil.example.net/x"],
      context,
    });
    expect(refused.email.redirectTo).toBe("http://localhost:3000");
    const allowed = await auth.admin.generateLink({
      admin,
      type: "recovery",
      email: "known@example.com",
      redirectTo: [undefined, "https://app.example.com/welcome?x=1"],
      context,
    });
    expect(allowed.email.redirectTo).toBe("https://app.example.com/welcome?x=1");
  });

  it("sends nothing and is held to no send limit", async () => {
    const { auth, emails } = await withKnownUser({ policy: { email: { sendLimit: { events: 1, perSeconds: 3600 } } } });
    for (let round = 0; round < 3; round++) {
      await auth.admin.generateLink({ admin, type: "magiclink", email: "known@example.com", context });
      await auth.admin.generateLink({ admin, type: "invite", email: `invitee-${round}@example.com`, context });
    }
    expect(await emails()).toEqual([]);
    // The quota of real mails is untouched.
    await auth.recoverPassword({ email: "known@example.com", context });
    expect((await emails()).map((mail) => mail.kind)).toEqual(["recovery"]);
  });

  it("records what each link is for, with the admin as the actor", async () => {
    const testAuth = await withKnownUser();
    const { auth } = testAuth;
    await auth.admin.generateLink({ admin, type: "signup", email: "s@example.com", password, context });
    await auth.admin.generateLink({ admin, type: "invite", email: "i@example.com", context });
    await auth.admin.generateLink({ admin, type: "magiclink", email: "known@example.com", context });
    await auth.admin.generateLink({ admin, type: "recovery", email: "known@example.com", context });
    await auth.admin.generateLink({
      admin,
      type: "email_change_new",
      email: "known@example.com",
      newEmail: "n@example.com",
      context,
    });
    expect(await actions(testAuth)).toEqual([
      ["user_confirmation_requested", "signup"],
      ["user_invited", "invite"],
      ["user_recovery_requested", "magiclink"],
      ["user_recovery_requested", "recovery"],
      ["user_modified", "email_change_new"],
    ]);
    const [last] = (await testAuth.stores.auditLog.list({ page: 1, perPage: 1 })).entries;
    expect(last).toMatchObject({
      actorId: NO_USER_ID,
      actorUsername: "service_role",
      traits: { user_email: "known@example.com" },
    });
  });
});

describe("admin: generate email change links", () => {
  it("without secure email change: the one link to the new address moves the email", async () => {
    const { auth, user, stores, emails } = await withKnownUser({ policy: { email: { secureEmailChange: false } } });
    await failsWith(
      "validation_failed",
      auth.admin.generateLink({
        admin,
        type: "email_change_current",
        email: "known@example.com",
        newEmail: "moved@example.com",
        context,
      }),
    );
    const link = await auth.admin.generateLink({
      admin,
      type: "email_change_new",
      email: "known@example.com",
      newEmail: "Moved@Example.com",
      context,
    });
    expect(link.user).toMatchObject({ email: "known@example.com", newEmail: "moved@example.com" });
    expect(link.email).toMatchObject({
      kind: "email_change",
      linkType: "email_change",
      to: "moved@example.com",
      email: "known@example.com",
    });
    const grant = await follow(auth, link.email);
    expect(grant.user).toMatchObject({ id: user.id, email: "moved@example.com", newEmail: null });
    expect((await stores.users.findById(user.id))?.email).toBe("moved@example.com");
    expect((await auth.signInWithPassword({ email: "moved@example.com", password, context })).user.id).toBe(user.id);
    expect(await emails()).toEqual([]);
  });

  it("with secure email change: both links are needed, the first answering that the other must follow", async () => {
    const { auth, user, stores } = await withKnownUser({ policy: { email: { secureEmailChange: true } } });
    const request = { admin, email: "known@example.com", newEmail: "moved@example.com", context };
    const current = await auth.admin.generateLink({ ...request, type: "email_change_current" });
    const next = await auth.admin.generateLink({ ...request, type: "email_change_new" });
    expect(current.email.to).toBe("known@example.com");
    expect(next.email.to).toBe("moved@example.com");

    const first = await auth.verify({
      type: "email_change",
      proof: { linkToken: current.email.linkToken },
      followedLink: true,
      context,
    });
    expect(first.kind).toBe("awaiting_other_address");
    expect((await stores.users.findById(user.id))?.email).toBe("known@example.com");
    const second = await auth.verify({
      type: "email_change",
      proof: { email: "moved@example.com", code: next.email.otp },
      followedLink: false,
      context,
    });
    expect(second.kind === "session" && second.grant.user.email).toBe("moved@example.com");
  });

  it("refuses a new address a confirmed user holds, or none, and allows one only claimed", async () => {
    const { auth, stores } = await withKnownUser();
    await stores.users.insert(aUser({ email: "holder@example.com" }));
    await stores.users.insert(aUser({ email: "squatted@example.com", emailConfirmedAt: null }));
    const change = (newEmail: string | undefined) =>
      auth.admin.generateLink({ admin, type: "email_change_new", email: "known@example.com", newEmail, context });
    await failsWith("email_exists", change("HOLDER@example.com"));
    await failsWith("validation_failed", change(undefined));
    expect((await change("squatted@example.com")).user.newEmail).toBe("squatted@example.com");
  });
});
