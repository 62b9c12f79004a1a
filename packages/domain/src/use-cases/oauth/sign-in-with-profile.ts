import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import {
  type AddressProofDecision,
  decideAccount,
  decideAddressProof,
  verifiedAddresses,
} from "../../model/account-linking.ts";
import type { AuditAction } from "../../model/audit.ts";
import type { Identity } from "../../model/identity.ts";
import { type Metadata, mergeMetadata } from "../../model/metadata.ts";
import type { ProviderProfile } from "../../model/provider-profile.ts";
import { isBanned, newUser, type User, withProviders } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { recordAudit } from "../../services/audit.ts";
import { beforeUserCreated } from "../../services/hooks/user-created.ts";
import { providerIdentity, providerIdentityData } from "../../services/identities/provider-identity.ts";
import {
  mailAddressConfirmation,
  needsVerification,
  notifyIdentity,
  type ProviderSignInOutcome,
} from "../../services/identities/provider-sign-in.ts";

export interface ProviderSignInInput {
  /** Canonical provider name. */
  readonly provider: string;
  readonly profile: ProviderProfile;
  /** EXTERNAL_<P>_EMAIL_OPTIONAL */
  readonly emailOptional: boolean;
  /** The invited user whose invitation this sign-in accepts. */
  readonly inviteUserId?: string | null;
  /** Where a confirmation mail's link leads, when one must be sent. */
  readonly redirectTo: string;
  readonly context: RequestContext;
}

/**
 * Who a provider sign-in is, in the caller's transaction (GoTrue's rules, reference in docs/compatibility.md):
 * the identity's user; else the one account holding a verified address of the sign-in (linked); else a new
 * account. An account nobody has confirmed goes to whoever proves its address through the provider: its other
 * identities and its password are dropped (pre-account takeover), and it is confirmed when the provider verified
 * the address, else a confirmation mail goes out and the sign-in waits for it.
 */
export async function signInWithProviderProfile(
  deps: Deps,
  stores: Stores,
  input: ProviderSignInInput,
): Promise<ProviderSignInOutcome> {
  const { provider, profile } = input;
  const now = deps.clock.now();
  const { chosen, email: candidate, identityData } = providerIdentityData(profile);
  if (chosen === null && !input.emailOptional) {
    throw new AuthError("email_address_not_provided", "Error getting user email from external provider");
  }
  const identityOf = (userId: string, existing?: Identity | null): Identity =>
    providerIdentity({ id: deps.random.uuid(), userId, provider, profile, identityData, now, existing });
  const request: SignInRequest = { input, now, candidate, identityData, identityOf };

  const reached = input.inviteUserId
    ? await acceptInvite(stores, input.inviteUserId, request)
    : await reachAccount(deps, stores, request);
  if (isBanned(reached.user, now)) throw new AuthError("user_banned", messages.userBanned);
  const proof = decideAddressProof({
    account: reached.user,
    candidate,
    emailOptional: input.emailOptional,
    verified: verifiedAddresses(profile.emails, deps.policy.signup.emailAutoconfirm),
    allowUnverifiedSignIns: deps.policy.signup.allowUnverifiedEmailSignIns,
  });
  const proven = await carryOutProof(deps, stores, { request, reached, proof });
  const created = reached.signedUp ? { created: reached.user } : {};
  if (proven === "waits") return { kind: "needs_verification", provider, ...created };

  const user = { ...proven.user, lastSignInAt: now };
  await stores.identities.save(proven.identity);
  await stores.users.update(user);
  const { action, traits } = proven.audit;
  await recordAudit(deps, stores, { action, actor: user, context: input.context, traits });
  if (action === "identity_linked") {
    await notifyIdentity(deps, stores, { kind: "identity_linked", userId: user.id, to: user.email, provider });
  }
  return { kind: "signed_in", user, ...(reached.signedUp ? { created: user } : {}) };
}

/** What a provider sign-in knows once it has checked the profile, for the steps that carry it out. */
interface SignInRequest {
  readonly input: ProviderSignInInput;
  readonly now: Date;
  /** The address the sign-in goes by, lower-cased. */
  readonly candidate: string | null;
  readonly identityData: Metadata;
  /** The sign-in's identity for this user: new, or `existing` brought up to date. */
  readonly identityOf: (userId: string, existing?: Identity | null) => Identity;
}

/** The account a sign-in reached, and what the log says of it unless proving its address changes that. */
interface ReachedAccount {
  readonly user: User;
  readonly audit: { readonly action: AuditAction; readonly traits: Metadata };
  /** Whether the sign-in created the account. */
  readonly signedUp: boolean;
}

/** Who the sign-in is (decideAccount), carried out: the identity joins its user, or a new account is made. */
async function reachAccount(deps: Deps, stores: Stores, request: SignInRequest): Promise<ReachedAccount> {
  const { input, now, candidate, identityOf } = request;
  const { provider, profile } = input;
  const existing = await stores.identities.find(provider, profile.subject);
  const owner = existing ? await stores.users.findById(existing.userId, { forUpdate: true }) : null;
  const verified = verifiedAddresses(profile.emails, deps.policy.signup.emailAutoconfirm);
  const decision = decideAccount({
    identityOwner: owner && owner.deletedAt === null ? owner : null,
    candidate,
    verified,
    holders: await holdersOf(stores, verified),
    candidateTaken: candidate !== null && (await stores.users.findByEmail(candidate)) !== null,
  });
  switch (decision.kind) {
    case "sign_in": {
      const user = withIdentity(decision.user, identityOf(decision.user.id, existing), now);
      return { user, audit: { action: "login", traits: { provider } }, signedUp: false };
    }
    case "link": {
      const identity = identityOf(decision.user.id);
      const traits = { identity_id: identity.id, provider, provider_id: profile.subject };
      return {
        user: withIdentity(decision.user, identity, now),
        audit: { action: "identity_linked", traits },
        signedUp: false,
      };
    }
    case "create":
      return createAccount(deps, stores, request, decision.email);
    case "multiple_accounts":
      // GoTrue answers a 500; this is no failure of ours but an ambiguity the person can resolve.
      throw new AuthError(
        "email_exists",
        "Multiple accounts with the same email address in the same linking domain detected: default",
      );
  }
}

/** A new account for the sign-in, with the address decideAccount gave it or none. */
async function createAccount(
  deps: Deps,
  stores: Stores,
  request: SignInRequest,
  email: string | null,
): Promise<ReachedAccount> {
  const { input, now } = request;
  const { provider } = input;
  if (deps.policy.signup.disabled) throw new AuthError("signup_disabled", messages.signupsDisabled);
  const id = deps.random.uuid();
  const user: User = {
    ...newUser({ id, aud: deps.policy.defaultAudience, role: deps.policy.defaultRole, now }),
    email,
    appMetadata: { provider, providers: [provider] },
    userMetadata: request.identityData,
    identities: [request.identityOf(id)],
  };
  await beforeUserCreated(deps, stores, { user, context: input.context });
  await stores.users.insert(user);
  // A new account is a signup, with an address or without (the confirmation may replace this).
  return { user, audit: { action: "user_signedup", traits: { provider } }, signedUp: true };
}

/**
 * The account once what decideAddressProof asked is done: taken over, confirmed, or its address mailed; "waits"
 * when the sign-in waits for that mail (committed). Without an address to confirm (another account has it) and
 * no unverified sign-ins, it fails and nothing is written: there is nothing to wait for.
 */
async function carryOutProof(
  deps: Deps,
  stores: Stores,
  step: { readonly request: SignInRequest; readonly reached: ReachedAccount; readonly proof: AddressProofDecision },
): Promise<{ user: User; identity: Identity; audit: ReachedAccount["audit"] } | "waits"> {
  const { request, reached, proof } = step;
  const { input, now } = request;
  const { provider, profile } = input;
  let user = reached.user;
  let identity = user.identities.find((each) => each.provider === provider && each.providerId === profile.subject)!;
  if (proof.kind === "none_needed") return { user, identity, audit: reached.audit };
  if (proof.takeOver) {
    // The account goes to whoever proves its address now, with nothing anyone else set.
    identity = { ...identity, userId: user.id };
    const identities = [identity];
    const appMetadata = withProviders(user.appMetadata, identities);
    user = { ...user, passwordHash: null, userMetadata: request.identityData, identities, appMetadata };
    await stores.identities.deleteAllOfUser(user.id);
  }
  if (proof.kind === "confirm") {
    return {
      user: { ...user, emailConfirmedAt: now },
      identity,
      audit: { action: "user_signedup", traits: { provider } },
    };
  }
  if (proof.mail) {
    user = { ...user, confirmationSentAt: now };
    await stores.identities.save(identity);
    await stores.users.update(user);
    const claim = { address: user.email!, identityId: identity.id, redirectTo: input.redirectTo };
    await mailAddressConfirmation(deps, stores, user, claim);
  }
  if (proof.signIn) return { user, identity, audit: reached.audit };
  if (!proof.mail) throw needsVerification(provider, false);
  return "waits";
}

/** The user with this identity (added, or replacing its earlier self), its data merged into user_metadata. */
function withIdentity(user: User, identity: Identity, now: Date): User {
  const identities = [...user.identities.filter((each) => each.id !== identity.id), identity];
  return {
    ...user,
    identities,
    userMetadata: mergeMetadata(user.userMetadata, identity.identityData),
    appMetadata: withProviders(user.appMetadata, identities),
    updatedAt: now,
  };
}

/**
 * The users (not deleted) holding one of the addresses: as their email, or through an identity whose provider
 * verified it. security: an identity that merely claims an address holds nothing, or a stranger's claim would pull
 * the address's owner into the stranger's account (or lock the owner out with email_exists). An account whose
 * email nobody confirmed does hold it: whoever proves the address through the provider takes it over, rid of what
 * was set before (signInWithProviderProfile).
 */
async function holdersOf(stores: Stores, addresses: readonly string[]): Promise<User[]> {
  if (addresses.length === 0) return [];
  const ids = new Set<string>();
  for (const address of addresses) {
    const user = await stores.users.findByEmail(address);
    if (user) ids.add(user.id);
  }
  for (const identity of await stores.identities.findByEmails(addresses)) {
    // An SSO provider's identities are its own linking domain: they hold no address for anyone else (GoTrue's rule).
    if (identity.provider.startsWith("sso:")) continue;
    if (identity.identityData["email_verified"] === true) ids.add(identity.userId);
  }
  const users: User[] = [];
  for (const id of ids) {
    const user = await stores.users.findById(id, { forUpdate: true });
    if (user && user.deletedAt === null) users.push(user);
  }
  return users;
}

/**
 * An invitation accepted by signing in at a provider: one of the provider's addresses must be the invited one
 * (compared without case, where GoTrue compares exactly). The invitation is used up.
 */
async function acceptInvite(stores: Stores, userId: string, request: SignInRequest): Promise<ReachedAccount> {
  const { profile, provider } = request.input;
  const user = await stores.users.findById(userId, { forUpdate: true });
  const invite = user ? await stores.oneTimeTokens.findByUser(user.id, "invite") : null;
  if (!user || !invite || user.deletedAt !== null) {
    throw new AuthError("user_not_found", "User identified by token not found");
  }
  const addresses = profile.emails.map((email) => email.address.toLowerCase());
  if (user.email === null || !addresses.includes(user.email)) {
    throw new AuthError("validation_failed", "Invited email does not match emails from external provider");
  }
  await stores.oneTimeTokens.delete(invite.id);
  const identity = request.identityOf(user.id);
  const identities = [...user.identities, identity];
  const accepted: User = {
    ...user,
    emailConfirmedAt: user.emailConfirmedAt ?? identity.createdAt,
    identities,
    userMetadata: mergeMetadata(user.userMetadata, identity.identityData),
    appMetadata: withProviders(user.appMetadata, identities),
  };
  return { user: accepted, audit: { action: "invite_accepted", traits: { provider } }, signedUp: false };
}
