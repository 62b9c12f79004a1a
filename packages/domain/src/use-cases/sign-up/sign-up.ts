import type { Deps, LinkRequest, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, isAuthError, messages } from "../../errors.ts";
import type { Contact } from "../../model/contact.ts";
import { normalizeEmail } from "../../model/email.ts";
import { assertMetadataFits, type Metadata } from "../../model/metadata.ts";
import { NO_CHOICES, type PendingChoices } from "../../model/one-time-token.ts";
import { normalizePhone } from "../../model/phone.ts";
import { readPkceChallenge } from "../../model/pkce.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { confirmEmail, confirmPhone, isBanned, newUser, type User, withChosenMetadata } from "../../model/user.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { limitFrequency } from "../../services/abuse/send-frequency.ts";
import { observeDuration, type PaddedOperation, padDuration } from "../../services/abuse/timing.ts";
import { assertNewAccountMetadataFits, newAccount } from "../../services/accounts/new-account.ts";
import { assertPasswordStrong } from "../../services/accounts/password-strength.ts";
import { type AuditEvent, auditEntry, recordAudit } from "../../services/audit.ts";
import { findUserByContact } from "../../services/contacts/contact-holders.ts";
import { type ConfirmationRequest, sendConfirmation } from "../../services/delivery/confirmation.ts";
import { assertEmailQuotaLeft } from "../../services/delivery/email-quota.ts";
import { limitSmsCodes, smsChannelOf } from "../../services/delivery/sms-codes.ts";
import { afterUserCreated, beforeUserCreated } from "../../services/hooks/user-created.ts";
import { accessClaims, grantSignIn, inSessionWrite, newSession, openSession } from "../../services/sessions.ts";
import { decideSignUp } from "./sign-up-decision.ts";

export interface SignUpInput extends LinkRequest {
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  readonly password?: string | undefined;
  readonly data?: Metadata | undefined;
  /** X-JWT-AUD; JWT_AUD when absent. */
  readonly audience?: string | undefined;
  /** How a phone signup's code is sent: `sms` (the default), or `whatsapp` through a provider that sends it. */
  readonly channel?: string | undefined;
  readonly context: RequestContext;
}

/** A confirmed signup signs the user in; one awaiting confirmation answers with the user. */
export type SignUpResult =
  | { readonly kind: "user"; readonly user: User }
  | { readonly kind: "session"; readonly grant: SessionGrant };

export async function signUp(deps: Deps, input: SignUpInput): Promise<SignUpResult> {
  const { signup } = deps.policy;
  const hasEmail = input.email !== undefined && input.email !== "";
  const hasPhone = input.phone !== undefined && input.phone !== "";
  if (!hasEmail && !hasPhone) return signUpAnonymously(deps, input);

  await limitPerClient(deps, "signup", input.context);
  if (signup.disabled) throw new AuthError("signup_disabled", messages.signupsDisabled);
  if (hasEmail && hasPhone) {
    throw new AuthError("validation_failed", "Only an email address or phone number should be provided on signup.");
  }
  const password = input.password ?? "";
  if (password === "") throw new AuthError("validation_failed", "Signup requires a valid password");
  await assertPasswordStrong(deps, password);
  if (hasEmail && !signup.emailEnabled) throw new AuthError("email_provider_disabled", "Email signups are disabled");
  if (hasPhone && !signup.phoneEnabled) throw new AuthError("phone_provider_disabled", "Phone signups are disabled");

  const pkce = readPkceChallenge(input.codeChallenge, input.codeChallengeMethod);
  if (pkce && hasPhone) throw new AuthError("validation_failed", "PKCE not supported for phone signups");
  const channel = hasPhone ? smsChannelOf(deps, input.channel) : "sms";
  const contact: Contact = hasEmail
    ? { provider: "email", address: normalizeEmail(input.email!) }
    : { provider: "phone", address: normalizePhone(input.phone!) };
  assertNewAccountMetadataFits(contact, input.data);
  const delivery = { redirectTo: chooseRedirect(input.redirectTo ?? [], deps.policy.redirect), pkce, channel };

  const request: SignUpRequest = { input, contact, password, started: deps.clock.now(), delivery };
  if (!autoconfirms(deps, contact)) await limitConfirmations(deps, contact);
  const existing = await findUserByContact(deps.stores, contact);
  try {
    return await carryOut(deps, request, existing);
  } catch (error) {
    // A concurrent signup with the same address won the insert: answer as for any duplicate.
    if (existing || (!isAuthError(error, "email_exists") && !isAuthError(error, "phone_exists"))) throw error;
    const winner = await findUserByContact(deps.stores, contact);
    if (!winner) throw error;
    return carryOut(deps, request, winner);
  }
}

type Delivery = Omit<ConfirmationRequest, "contact" | "choices">;

/** A signup with an address, checked. */
interface SignUpRequest {
  readonly input: SignUpInput;
  readonly contact: Contact;
  readonly password: string;
  /** When the request began: the answers that reveal nothing take as long as a real signup from then. */
  readonly started: Date;
  readonly delivery: Delivery;
}

/** Decides what the signup does, given who holds the address already, and does it. */
async function carryOut(deps: Deps, request: SignUpRequest, existing: User | null): Promise<SignUpResult> {
  const { contact } = request;
  const decision = decideSignUp({ existing, provider: contact.provider, autoconfirm: autoconfirms(deps, contact) });
  switch (decision.kind) {
    case "create_confirmed":
      return createConfirmed(deps, request);
    case "create_pending":
      return createPending(deps, request);
    case "already_registered":
      throw alreadyRegistered(contact);
    case "disguise_confirmed":
      // security: shaped like a real signup, and as slow: the same hashing, a committed transaction, then a wait
      // for whatever real signups take beyond that. The answer does not reveal the account.
      await deps.hasher.hash(request.password);
      await recordRepeatedSignup(deps, request, decision.user);
      return { kind: "user", user: fabricatedUser(deps, contact, request.input) };
    case "confirm_owner":
      return confirmOwner(deps, request, decision.user);
    case "disguise_invited": {
      // An invitation is not turned into a signup confirmation: a stranger's signup mails the invitee nothing.
      const answer = pendingAnswer(deps, request, decision.user);
      await deps.hasher.verifyNothing(request.password);
      await recordRepeatedSignup(deps, request, decision.user);
      return { kind: "user", user: answer };
    }
    case "resend_confirmation":
      return resendConfirmation(deps, request, decision.user);
  }
}

/** Email and phone signups take different times (a phone's sends its SMS at once), so each has its own. */
function timingOf(contact: Contact): PaddedOperation {
  return `signup:${contact.provider}`;
}

/** compat: GoTrue answers a phone with 400, an email with 422 (docs/compatibility.md, Errors). */
function alreadyRegistered(contact: Contact): AuthError {
  const phone = contact.provider === "phone" ? { case: "phone_already_registered" as const } : {};
  return new AuthError("user_already_exists", messages.userAlreadyRegistered, phone);
}

function autoconfirms(deps: Deps, contact: Contact): boolean {
  return contact.provider === "email" ? deps.policy.signup.emailAutoconfirm : deps.policy.signup.phoneAutoconfirm;
}

/**
 * A signup that will send a confirmation: no more than one per SMTP_MAX_FREQUENCY (SMS_MAX_FREQUENCY) to the
 * address, shared with /resend, and while the email (SMS) quota has room. Checked before looking the address up,
 * so a duplicate of a confirmed account is refused alike and the refusal tells nothing.
 */
async function limitConfirmations(deps: Deps, contact: Contact): Promise<void> {
  if (contact.provider === "phone") return limitSmsCodes(deps, contact.address, "confirmation");
  const seconds = deps.policy.otp.emailConfirmationFrequencySeconds;
  await limitFrequency(deps, { purpose: "confirmation", address: contact.address, seconds, channel: "email" });
  await assertEmailQuotaLeft(deps);
}

async function createConfirmed(deps: Deps, request: SignUpRequest): Promise<SignUpResult> {
  const { contact, input } = request;
  const passwordHash = await deps.hasher.hash(request.password);
  const now = deps.clock.now();
  const user = newAccount(deps, { contact, passwordHash, data: input.data, audience: input.audience });
  const confirmed = { ...confirm(user, contact, now), lastSignInAt: now };
  const opened = newSession(deps, confirmed, { method: "password", context: input.context });
  const audit = signedUp(confirmed, contact.provider, input.context).map((event) => auditEntry(deps, event));
  await beforeUserCreated(deps, deps.stores, { user: confirmed, context: input.context });
  // One write for the account, its identity, its session and the log, with no transaction round trips around it
  // (unless a hook makes the claims).
  const claims = await inSessionWrite(deps, async (stores) => {
    await stores.sessions.openForNewUser(confirmed, opened.session, opened.firstToken, audit);
    const issuance = { user: confirmed, session: opened.session, method: "password", context: input.context };
    return accessClaims(deps, stores, issuance);
  });
  deps.events.record({ kind: "signed_up", provider: contact.provider });
  await afterUserCreated(deps, { user: confirmed, context: input.context });
  return { kind: "session", grant: await grantSignIn(deps, confirmed, { ...opened, claims }) };
}

async function createPending(deps: Deps, request: SignUpRequest): Promise<SignUpResult> {
  const { contact, input } = request;
  const passwordHash = await deps.hasher.hash(request.password);
  const now = deps.clock.now();
  // security: until the address is proven, what this request chose (password and data) rides on the
  // confirmation, not on the account: whoever proves the address some other way gets none of it.
  const choices = { ...NO_CHOICES, passwordHash, userMetadata: input.data ?? null };
  const pending = { ...newAccount(deps, { contact, passwordHash, audience: input.audience }), confirmationSentAt: now };
  await deps.tx.run(async (stores) => {
    // The hooks see the user as GoTrue's do, with the request's data, which here rides on the confirmation.
    await beforeUserCreated(deps, stores, {
      user: withChosenMetadata(pending, choices.userMetadata),
      context: input.context,
    });
    await stores.users.insert(pending);
    const traits = { provider: contact.provider };
    await recordAudit(deps, stores, {
      action: "user_confirmation_requested",
      actor: pending,
      context: input.context,
      traits,
    });
    await sendConfirmation(deps, stores, pending, { contact, ...request.delivery, choices });
  });
  deps.events.record({ kind: "signed_up", provider: contact.provider });
  await afterUserCreated(deps, { user: withChosenMetadata(pending, choices.userMetadata), context: input.context });
  observeDuration(deps, timingOf(contact), request.started);
  return { kind: "user", user: withChosenMetadata(pending, choices.userMetadata) };
}

/** A repeated signup answered without a change: logged, and as slow as a real one. */
async function recordRepeatedSignup(deps: Deps, request: SignUpRequest, existing: User): Promise<void> {
  const traits = { provider: request.contact.provider };
  const { context } = request.input;
  await deps.tx.run((stores) =>
    recordAudit(deps, stores, { action: "user_repeated_signup", actor: existing, context, traits }),
  );
  await padDuration(deps, timingOf(request.contact), request.started);
}

/** GoTrue confirms and signs in here without looking at the password; we only do so for its owner. */
async function confirmOwner(deps: Deps, request: SignUpRequest, existing: User): Promise<SignUpResult> {
  const { contact, input, password } = request;
  const verifiedHash = existing.passwordHash;
  if (verifiedHash === null) {
    await deps.hasher.verifyNothing(password);
    throw alreadyRegistered(contact);
  }
  if (!(await deps.hasher.verify(verifiedHash, password)).ok) throw alreadyRegistered(contact);
  const opened = await deps.tx.run(async (stores) => {
    // Decide on the row as it is now: the password, the ban and the confirmation may have changed meanwhile.
    const current = await stores.users.findById(existing.id, { forUpdate: true });
    const now = deps.clock.now();
    if (!current || current.passwordHash !== verifiedHash) throw alreadyRegistered(contact);
    if (isBanned(current, now)) throw new AuthError("user_banned", messages.userBanned);
    const user = { ...confirm(current, contact, now), lastSignInAt: now };
    await stores.users.update(user);
    for (const identity of user.identities) await stores.identities.save(identity);
    const audit = signedUp(user, contact.provider, input.context);
    return { user, ...(await openSession(deps, stores, user, { method: "password", context: input.context, audit })) };
  });
  return { kind: "session", grant: await grantSignIn(deps, opened.user, opened) };
}

/**
 * security: the answer about a pending account shows the account's id, as GoTrue's does (the client expects the
 * same user back), and otherwise only what this request sent: nothing stored (metadata, invitation, timestamps).
 */
function pendingAnswer(deps: Deps, request: SignUpRequest, existing: User): User {
  const { contact, input } = request;
  const shown = newAccount(deps, { contact, passwordHash: null, audience: input.audience, id: existing.id });
  return withChosenMetadata({ ...shown, confirmationSentAt: deps.clock.now() }, input.data);
}

/**
 * Awaiting confirmation: send the confirmation again. The account keeps its password and data, since whoever
 * asks has not proven they own the address; their choices ride on the confirmation instead.
 */
async function resendConfirmation(deps: Deps, request: SignUpRequest, existing: User): Promise<SignUpResult> {
  const { contact, input } = request;
  const answer = pendingAnswer(deps, request, existing);
  const repeated = await repeatedSignupChoices(deps, existing, request.password, input.data);
  await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const current = (await stores.users.findById(existing.id, { forUpdate: true })) ?? existing;
    // Decided on the confirmation pending before the lock: if another request replaced it meanwhile, the two
    // signups were not compared, and the mail carries nothing.
    const stillPending =
      (await stores.oneTimeTokens.findByUser(existing.id, "confirmation"))?.id === repeated.comparedWith;
    const pending = { ...current, confirmationSentAt: now, updatedAt: now };
    await stores.users.update(pending);
    const traits = { provider: contact.provider };
    await recordAudit(deps, stores, {
      action: "user_confirmation_requested",
      actor: pending,
      context: input.context,
      traits,
    });
    await sendConfirmation(deps, stores, pending, {
      contact,
      ...request.delivery,
      choices: stillPending ? repeated.choices : NO_CHOICES,
    });
  });
  return { kind: "user", user: answer };
}

/**
 * What a repeated signup's confirmation carries. security: two signups of one unconfirmed address may be its owner
 * and someone hoping the owner confirms their password or data (pre-account hijacking). Only a signup that chose
 * the password the pending confirmation already carries is taken for the same party: its confirmation keeps that
 * password and carries this signup's data. In every other case (the passwords differ, the pending mail carries
 * none, none is pending: a sign-in code, a confirmation someone burned with wrong guesses) the confirmed account
 * gets neither, and its owner, signed in by the link, sets them. `comparedWith` names the pending confirmation this
 * was decided on.
 */
async function repeatedSignupChoices(
  deps: Deps,
  existing: User,
  password: string,
  data: Metadata | undefined,
): Promise<{ choices: PendingChoices; comparedWith: string | undefined }> {
  const pending = await deps.stores.oneTimeTokens.findByUser(existing.id, "confirmation");
  if (!pending || pending.passwordHash === null) {
    await deps.hasher.verifyNothing(password);
    return { choices: NO_CHOICES, comparedWith: pending?.id };
  }
  const same = (await deps.hasher.verify(pending.passwordHash, password)).ok;
  const choices = same
    ? { passwordHash: pending.passwordHash, userMetadata: data ?? null, identityId: pending.identityId }
    : NO_CHOICES;
  return { choices, comparedWith: pending.id };
}

/** A signup that signs the user straight in: GoTrue records both. */
function signedUp(user: User, provider: string, context: RequestContext): AuditEvent[] {
  return [
    { action: "user_signedup", actor: user, context, traits: { provider } },
    { action: "login", actor: user, context, traits: { provider } },
  ];
}

function addressFields(contact: Contact): Pick<User, "email" | "phone"> {
  return contact.provider === "email"
    ? { email: contact.address, phone: null }
    : { email: null, phone: contact.address };
}

function confirm(user: User, contact: Contact, now: Date): User {
  return contact.provider === "email" ? confirmEmail(user, now) : confirmPhone(user, now);
}

/**
 * What a duplicate signup of a confirmed account answers, as GoTrue shapes it: a fresh id, no identities
 * (`identities: []` is how apps tell), nothing of the real account.
 */
function fabricatedUser(deps: Deps, contact: Contact, input: SignUpInput): User {
  const now = deps.clock.now();
  return {
    ...newUser({ id: deps.random.uuid(), aud: input.audience ?? deps.policy.defaultAudience, role: "", now }),
    ...addressFields(contact),
    confirmationSentAt: now,
    appMetadata: { provider: contact.provider, providers: [contact.provider] },
    userMetadata: input.data ?? {},
  };
}

async function signUpAnonymously(deps: Deps, input: SignUpInput): Promise<SignUpResult> {
  const { signup } = deps.policy;
  if (!signup.anonymousEnabled) throw new AuthError("anonymous_provider_disabled", "Anonymous sign-ins are disabled");
  if (signup.disabled) throw new AuthError("signup_disabled", messages.signupsDisabled);
  await limitPerClient(deps, "anonymous_sign_ins", input.context);
  if (input.data) assertMetadataFits("user_metadata", input.data);
  const now = deps.clock.now();
  const user: User = {
    ...newUser({
      id: deps.random.uuid(),
      aud: input.audience ?? deps.policy.defaultAudience,
      role: deps.policy.defaultRole,
      now,
    }),
    userMetadata: input.data ?? {},
    isAnonymous: true,
    lastSignInAt: now,
  };
  const opened = await deps.tx.run(async (stores) => {
    await beforeUserCreated(deps, stores, { user, context: input.context });
    await stores.users.insert(user);
    const audit = signedUp(user, "anonymous", input.context);
    return openSession(deps, stores, user, { method: "anonymous", context: input.context, audit });
  });
  deps.events.record({ kind: "signed_up", provider: "anonymous" });
  await afterUserCreated(deps, { user, context: input.context });
  return { kind: "session", grant: await grantSignIn(deps, user, opened) };
}
