import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import { isBanned, isEmailConfirmed, isPhoneConfirmed, type User } from "../../model/user.ts";
import { counterMayFollow, type Passkey } from "../../model/webauthn.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { grantSignIn, openSession } from "../../services/sessions.ts";
import {
  type BegunCeremony,
  beginCeremony,
  type CeremonyAnswer,
  passkeyCeremony,
  readAnswer,
  takeChallenge,
  verificationFailed,
} from "./passkeys.ts";

/**
 * POST /passkeys/authentication/options: a passkey sign-in begun. Discoverable: no user is named and no credential
 * listed; the authenticator offers the user's passkeys, and the answer says whose it is. RATE_LIMIT_PASSKEY per
 * client (the captcha is the route's).
 */
export async function startPasskeySignIn(
  deps: Deps,
  input: { readonly context: RequestContext },
): Promise<BegunCeremony> {
  const ceremony = passkeyCeremony(deps);
  await limitPerClient(deps, "passkey", input.context);
  const { options, challenge } = await ceremony.authenticationOptions({
    allow: [],
    userVerification: deps.policy.passkeys.userVerification,
  });
  return beginCeremony(deps, { ceremony: "authentication", principal: null, options, challenge });
}

export interface SignInWithPasskeyInput extends CeremonyAnswer {
  readonly context: RequestContext;
}

/**
 * POST /passkeys/authentication/verify: an assertion answering a sign-in challenge, which it uses up. It must be
 * the signature of a passkey of ours, over that challenge, by the user its handle names; then, as GoTrue does, the
 * user's addresses must be confirmed and the user not banned, and an aal1 session opens with `amr` `passkey`. Every
 * way an assertion can fail is one answer, `webauthn_verification_failed`: which passkeys exist is not told.
 */
export async function signInWithPasskey(deps: Deps, input: SignInWithPasskeyInput): Promise<SessionGrant> {
  const ceremony = passkeyCeremony(deps);
  const { challengeId, credential } = readAnswer(input);
  const challenge = await takeChallenge(deps, { id: challengeId, ceremony: "authentication", userId: null });
  const subject = ceremony.assertionSubject(credential);
  if (subject === null) throw verificationFailed();

  const opened = await deps.tx.run(async (stores) => {
    // Locked: two sign-ins with one passkey take turns, so its counter only moves forward.
    const passkey = await stores.passkeys.findByCredentialId(subject.credentialId, { forUpdate: true });
    if (!passkey || subject.userHandle !== passkey.userId) throw verificationFailed();
    const verified = await ceremony.verifyAuthentication(credential, { ...challenge, key: passkey });
    if (verified === null) throw verificationFailed();
    if (!counterMayFollow(passkey.signCount, verified.signCount)) throw counterRegressed(deps, passkey);
    const user = await stores.users.findById(passkey.userId);
    if (!user || user.deletedAt !== null) throw verificationFailed();
    assertMaySignIn(deps, user);
    const now = deps.clock.now();
    const used: Passkey = {
      ...passkey,
      signCount: verified.signCount,
      backedUp: verified.backedUp,
      lastUsedAt: now,
      updatedAt: now,
    };
    await stores.passkeys.recordUse(used);
    const session = await openSession(deps, stores, user, {
      method: "passkey",
      context: input.context,
      audit: [{ action: "login", actor: user, context: input.context, traits: { passkey_id: passkey.id } }],
    });
    return { user, session };
  });
  return grantSignIn(deps, opened.user, opened.session);
}

/** GoTrue's checks before a passkey signs its user in, in its order. */
function assertMaySignIn(deps: Deps, user: User): void {
  if (user.email !== null && !isEmailConfirmed(user)) {
    throw new AuthError("email_not_confirmed", "Email not confirmed");
  }
  if (user.phone !== null && !isPhoneConfirmed(user)) {
    throw new AuthError("phone_not_confirmed", "Phone not confirmed");
  }
  if (isBanned(user, deps.clock.now())) throw new AuthError("user_banned", messages.userBanned);
}

/**
 * security: a counter at or below the last one means two authenticators hold the key: the credential was cloned.
 * The sign-in is refused, and the operator hears of it (the log and the metrics).
 */
function counterRegressed(deps: Deps, passkey: Passkey): AuthError {
  deps.events.record({
    kind: "webauthn_counter_regressed",
    credential: "passkey",
    id: passkey.id,
    userId: passkey.userId,
  });
  return verificationFailed();
}
