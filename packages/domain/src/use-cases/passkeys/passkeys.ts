import type { Deps, Principal } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { hasVerifiedFactor, type User } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import type { PasskeyCeremony, WebAuthnChallenge } from "../../model/webauthn.ts";
import type { WebAuthnCeremony } from "../../ports/webauthn.ts";

// What the passkey flows share: the switch, the relying party, the assurance a change of passkeys needs, and the
// single-use challenges of their ceremonies.

/** PASSKEY_ENABLED: the relying party, or GoTrue's 404 `passkey_disabled`. */
export function passkeyCeremony(deps: Deps): WebAuthnCeremony {
  if (!deps.policy.passkeys.enabled || deps.webauthn === null) {
    throw new AuthError("passkey_disabled", "Passkeys are disabled");
  }
  return deps.webauthn;
}

/**
 * Adding or removing a passkey needs an aal2 session when the user has a verified factor, as GoTrue requires: a
 * stolen aal1 session must not plant a way in that skips the second factor. Without a session (a service key naming
 * the user) it fails closed.
 */
export function assertMayManagePasskeys(principal: Principal): void {
  if (!hasVerifiedFactor(principal.user)) return;
  if (principal.session?.aal === "aal2") return;
  throw new AuthError("insufficient_aal", "AAL2 session is required to manage passkeys when MFA is enabled");
}

/** GoTrue's rule: an SSO user signs in through its identity provider, never with a passkey of its own. */
export function assertNotSsoUser(principal: Principal): void {
  if (principal.user.isSsoUser) {
    throw new AuthError("validation_failed", "SSO users cannot register passkeys", { case: "sso_user_passkey" });
  }
}

/** The name and display name an authenticator shows for the user, as GoTrue gives them. */
export function webAuthnNames(user: User): { name: string; displayName: string } {
  const name = user.email ?? user.phone ?? user.id;
  const metaName = user.userMetadata["name"];
  return { name, displayName: typeof metaName === "string" && metaName !== "" ? metaName : name };
}

/** A ceremony's answer as the verify endpoints take it: the challenge's id and the browser's credential. */
export interface CeremonyAnswer {
  readonly challengeId: string | undefined;
  readonly credential: unknown;
}

/** The answer's fields, in GoTrue's words when one is missing or malformed. */
export function readAnswer(answer: CeremonyAnswer): { challengeId: string; credential: unknown } {
  if (!answer.challengeId) throw new AuthError("validation_failed", "challenge_id is required");
  if (answer.credential === undefined || answer.credential === null) {
    throw new AuthError("validation_failed", "credential is required");
  }
  if (!isUuid(answer.challengeId)) throw new AuthError("validation_failed", "challenge_id must be a valid UUID");
  return { challengeId: answer.challengeId, credential: answer.credential };
}

/**
 * Uses up the challenge a ceremony's answer names: gone once taken, whether the answer then verifies or not, so an
 * answer is checked against a challenge once at most. Outside any transaction, so that a failure after it still
 * leaves the challenge used.
 */
export async function takeChallenge(
  deps: Deps,
  { id, ceremony, userId }: { id: string; ceremony: PasskeyCeremony; userId: string | null },
): Promise<WebAuthnChallenge> {
  const challenge = await deps.stores.webauthnChallenges.take(id, ceremony, userId);
  if (!challenge) throw new AuthError("webauthn_challenge_not_found", "Challenge not found or already used");
  if (deps.clock.now().getTime() > challenge.expiresAt.getTime()) {
    throw new AuthError("webauthn_challenge_expired", "Challenge has expired");
  }
  return challenge;
}

/** A ceremony's options as the options endpoints answer them. */
export interface BegunCeremony {
  readonly challengeId: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly expiresAt: Date;
}

/** Stores the challenge of a ceremony begun, for WEBAUTHN_CHALLENGE_EXPIRY_DURATION. */
export async function beginCeremony(
  deps: Deps,
  begun: {
    ceremony: PasskeyCeremony;
    principal: Principal | null;
    options: Readonly<Record<string, unknown>>;
    challenge: string;
  },
): Promise<BegunCeremony> {
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.policy.passkeys.challengeExpirySeconds * 1000);
  const stored: WebAuthnChallenge = {
    id: deps.random.uuid(),
    ceremony: begun.ceremony,
    userId: begun.principal?.user.id ?? null,
    sessionId: begun.principal?.session?.id ?? null,
    challenge: begun.challenge,
    userVerification: deps.policy.passkeys.userVerification,
    createdAt: now,
    expiresAt,
  };
  await deps.stores.webauthnChallenges.insert(stored, now);
  return { challengeId: stored.id, options: begun.options, expiresAt };
}

export const verificationFailed = () => new AuthError("webauthn_verification_failed", "Credential verification failed");
