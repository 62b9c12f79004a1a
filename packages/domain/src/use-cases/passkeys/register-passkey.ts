import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { descriptorOf, type Passkey } from "../../model/webauthn.ts";
import { recordAudit } from "../../services/audit.ts";
import {
  assertMayManagePasskeys,
  assertNotSsoUser,
  type BegunCeremony,
  beginCeremony,
  type CeremonyAnswer,
  passkeyCeremony,
  readAnswer,
  takeChallenge,
  verificationFailed,
  webAuthnNames,
} from "./passkeys.ts";

export interface PasskeyRegistrationInput {
  readonly principal: Principal;
}

/**
 * POST /passkeys/registration/options: the creation options for a new passkey of the signed-in user, a discoverable
 * credential that excludes the passkeys the user has. Refused past PASSKEY_MAX_PASSKEYS_PER_USER.
 */
export async function startPasskeyRegistration(deps: Deps, input: PasskeyRegistrationInput): Promise<BegunCeremony> {
  const ceremony = passkeyCeremony(deps);
  assertNotSsoUser(input.principal);
  assertMayManagePasskeys(input.principal);
  const user = input.principal.user;
  const existing = await deps.stores.passkeys.listOfUser(user.id);
  assertRoomForOneMore(deps, existing.length);
  const { options, challenge } = await ceremony.registrationOptions({
    user: { id: user.id, ...webAuthnNames(user) },
    exclude: existing.map(descriptorOf),
    residentKey: "required",
    userVerification: deps.policy.passkeys.userVerification,
  });
  return beginCeremony(deps, { ceremony: "registration", principal: input.principal, options, challenge });
}

export interface VerifyPasskeyRegistrationInput extends CeremonyAnswer {
  readonly principal: Principal;
  readonly context: RequestContext;
}

/**
 * POST /passkeys/registration/verify: the authenticator's answer to a registration challenge of this user and
 * session, which it uses up. A credential that verifies becomes a passkey, named after its authenticator model.
 */
export async function verifyPasskeyRegistration(deps: Deps, input: VerifyPasskeyRegistrationInput): Promise<Passkey> {
  const ceremony = passkeyCeremony(deps);
  assertNotSsoUser(input.principal);
  assertMayManagePasskeys(input.principal);
  const { challengeId, credential } = readAnswer(input);
  const user = input.principal.user;
  const challenge = await takeChallenge(deps, { id: challengeId, ceremony: "registration", userId: user.id });
  // Bound to the session that asked: another session of the user cannot answer it.
  if (challenge.sessionId !== null && challenge.sessionId !== input.principal.session?.id) {
    throw new AuthError("webauthn_challenge_not_found", "Challenge not found or already used");
  }
  const key = await ceremony.verifyRegistration(credential, challenge);
  if (key === null) throw verificationFailed();
  const now = deps.clock.now();
  const passkey: Passkey = {
    ...key,
    id: deps.random.uuid(),
    userId: user.id,
    friendlyName: ceremony.authenticatorName(key.aaguid),
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
  };
  return deps.tx.run(async (stores) => {
    // Counted again under the user's lock: two registrations at once must not both pass the limit.
    await stores.users.findById(user.id, { forUpdate: true });
    assertRoomForOneMore(deps, await stores.passkeys.countOfUser(user.id));
    await stores.passkeys.insert(passkey);
    await recordAudit(deps, stores, {
      action: "passkey_created",
      actor: user,
      context: input.context,
      traits: { passkey_id: passkey.id },
    });
    return passkey;
  });
}

function assertRoomForOneMore(deps: Deps, count: number): void {
  if (count >= deps.policy.passkeys.maxPerUser) {
    throw new AuthError("too_many_passkeys", "Maximum number of passkeys reached");
  }
}
