import type { Factor } from "./factor.ts";
import { type Identity, providersOf } from "./identity.ts";
import type { Metadata } from "./metadata.ts";

export interface User {
  readonly id: string;
  readonly aud: string;
  readonly role: string;
  /** Lower-cased. */
  readonly email: string | null;
  /** E.164 with a leading `+`. */
  readonly phone: string | null;
  /** Never leaves the domain and its stores. */
  readonly passwordHash: string | null;
  readonly emailConfirmedAt: Date | null;
  readonly phoneConfirmedAt: Date | null;
  readonly invitedAt: Date | null;
  readonly confirmationSentAt: Date | null;
  readonly recoverySentAt: Date | null;
  /** Pending email change, until it is confirmed. */
  readonly newEmail: string | null;
  readonly emailChangeSentAt: Date | null;
  /**
   * Which address has confirmed the pending email change so far, by verifying its own token: a positive record,
   * so that a token destroyed, expired or replaced never counts as a confirmation. Reset by every new request.
   */
  readonly emailChangeConfirmedBy: EmailChangeSide | null;
  /** Pending phone change, until it is confirmed. */
  readonly newPhone: string | null;
  readonly phoneChangeSentAt: Date | null;
  readonly reauthenticationSentAt: Date | null;
  readonly lastSignInAt: Date | null;
  readonly appMetadata: Metadata;
  readonly userMetadata: Metadata;
  readonly bannedUntil: Date | null;
  readonly isAnonymous: boolean;
  /**
   * Signed up through SAML single sign-on: such a user is reached through its provider alone. Its address is its
   * own only within that provider, so it holds none of the addresses every other user shares (UserStore).
   */
  readonly isSsoUser: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly deletedAt: Date | null;
  /** Oldest first. */
  readonly identities: readonly Identity[];
  /** Second factors, verified or not, oldest first. Written through the FactorStore, never by UserStore.update. */
  readonly factors: readonly Factor[];
}

/** Whether the user has a verified second factor: then aal2 is the level to reach. */
export function hasVerifiedFactor(user: User): boolean {
  return user.factors.some((factor) => factor.status === "verified");
}

/** The two addresses of an email change: the account's current one and the one it moves to. */
export type EmailChangeSide = "current" | "new";

export function isBanned(user: User, now: Date): boolean {
  return user.bannedUntil !== null && user.bannedUntil.getTime() > now.getTime();
}

export function isEmailConfirmed(user: User): boolean {
  return user.emailConfirmedAt !== null;
}

export function isPhoneConfirmed(user: User): boolean {
  return user.phoneConfirmedAt !== null;
}

/** GoTrue's `confirmed_at`: the earlier of the two confirmations. */
export function confirmedAt(user: User): Date | null {
  const times = [user.emailConfirmedAt, user.phoneConfirmedAt].filter((t): t is Date => t !== null);
  if (times.length === 0) return null;
  return new Date(Math.min(...times.map((t) => t.getTime())));
}

/** app_metadata with `provider` (the first) and `providers` recomputed from the identities; other keys kept. */
export function withProviders(appMetadata: Metadata, identities: readonly Identity[]): Metadata {
  const providers = providersOf(identities);
  if (providers.length === 0) return appMetadata;
  return { ...appMetadata, provider: providers[0], providers };
}

/** A user with nothing set but what every user has. */
export function newUser(fields: { id: string; aud: string; role: string; now: Date }): User {
  return {
    id: fields.id,
    aud: fields.aud,
    role: fields.role,
    email: null,
    phone: null,
    passwordHash: null,
    emailConfirmedAt: null,
    phoneConfirmedAt: null,
    invitedAt: null,
    confirmationSentAt: null,
    recoverySentAt: null,
    newEmail: null,
    emailChangeSentAt: null,
    emailChangeConfirmedBy: null,
    newPhone: null,
    phoneChangeSentAt: null,
    reauthenticationSentAt: null,
    lastSignInAt: null,
    appMetadata: {},
    userMetadata: {},
    bannedUntil: null,
    isAnonymous: false,
    isSsoUser: false,
    createdAt: fields.now,
    updatedAt: fields.now,
    deletedAt: null,
    identities: [],
    factors: [],
  };
}

function markVerified(user: User, provider: "email" | "phone", now: Date): Pick<User, "userMetadata" | "identities"> {
  const flag = provider === "email" ? "email_verified" : "phone_verified";
  return {
    userMetadata: { ...user.userMetadata, [flag]: true },
    identities: user.identities.map((identity) =>
      identity.provider === provider
        ? { ...identity, identityData: { ...identity.identityData, [flag]: true }, updatedAt: now }
        : identity,
    ),
  };
}

/**
 * The user with its `email` or `phone` identity following its current address: the existing one updated, or a
 * new one (row id `newId`), and app_metadata's providers to match. Confirming the address then marks it verified.
 */
export function withContactIdentity(user: User, provider: "email" | "phone", newId: string, now: Date): User {
  const address = provider === "email" ? user.email : user.phone;
  const existing = user.identities.find((identity) => identity.provider === provider);
  const identity: Identity = existing
    ? { ...existing, identityData: { ...existing.identityData, [provider]: address }, updatedAt: now }
    : {
        id: newId,
        userId: user.id,
        provider,
        providerId: user.id,
        identityData: { sub: user.id, [provider]: address, email_verified: false, phone_verified: false },
        lastSignInAt: null,
        createdAt: now,
        updatedAt: now,
      };
  const identities = existing
    ? user.identities.map((other) => (other.id === identity.id ? identity : other))
    : [...user.identities, identity];
  return { ...user, identities, appMetadata: withProviders(user.appMetadata, identities) };
}

/** Confirms the email: timestamp, and `email_verified` in user_metadata and in the email identity. */
export function confirmEmail(user: User, now: Date): User {
  return { ...user, ...markVerified(user, "email", now), emailConfirmedAt: now, updatedAt: now };
}

/** Confirms the phone: timestamp, and `phone_verified` in user_metadata and in the phone identity. */
export function confirmPhone(user: User, now: Date): User {
  return { ...user, ...markVerified(user, "phone", now), phoneConfirmedAt: now, updatedAt: now };
}

/** The user asking to move to `newEmail`: a new request, which no earlier confirmation counts for. */
export function withEmailChangeRequested(user: User, newEmail: string, now: Date): User {
  return { ...user, newEmail, emailChangeSentAt: now, emailChangeConfirmedBy: null, updatedAt: now };
}

/** The user with no email change pending (when the last one was asked for stays on record). */
export function withoutEmailChange(user: User): User {
  return { ...user, newEmail: null, emailChangeConfirmedBy: null };
}

/**
 * The user with the user_metadata a request chose added, in user_metadata and in its address's identity data, as
 * GoTrue stores a signup's data; keys already there (the identity's own: sub, email, email_verified, ...) win.
 */
export function withChosenMetadata(user: User, chosen: Metadata | null | undefined): User {
  if (!chosen || Object.keys(chosen).length === 0) return user;
  const contact = user.email !== null ? "email" : "phone";
  return {
    ...user,
    userMetadata: { ...chosen, ...user.userMetadata },
    identities: user.identities.map((identity) =>
      identity.provider === contact ? { ...identity, identityData: { ...chosen, ...identity.identityData } } : identity,
    ),
  };
}
