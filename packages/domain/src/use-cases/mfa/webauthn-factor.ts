import type { Deps } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { Factor, MfaChallenge } from "../../model/factor.ts";
import type { User } from "../../model/user.ts";
import {
  counterMayFollow,
  descriptorOf,
  type UserVerification,
  type WebAuthnFactorChallenge,
  type WebAuthnKey,
} from "../../model/webauthn.ts";
import { factorCeremony } from "./factors.ts";

// The WebAuthn ceremonies of a WebAuthn factor: its first challenge registers its credential (`create`), the later
// ones ask that credential for a signature (`request`), as GoTrue's WebAuthn factors do.

/**
 * A second factor need not be discoverable, nor verify its user: it is the thing the user has, on top of the password
 * they know (GoTrue's defaults for its MFA relying party).
 */
const FACTOR_USER_VERIFICATION: UserVerification = "preferred";

/** What a WebAuthn factor's challenge offers the browser (GoTrue's `credential_options`), and what it expects. */
export interface FactorCeremony {
  readonly expected: WebAuthnFactorChallenge;
  readonly offer: {
    readonly type: "create" | "request";
    readonly credentialOptions: Readonly<Record<string, unknown>>;
  };
}

/** The ceremony a challenge of `factor` begins: `create` until its credential is registered, `request` after. */
export async function beginFactorCeremony(deps: Deps, user: User, factor: Factor): Promise<FactorCeremony> {
  const ceremony = factorCeremony(deps);
  const userVerification = FACTOR_USER_VERIFICATION;
  if (factor.webauthn === null) {
    const registered = user.factors.flatMap((each) => (each.webauthn === null ? [] : [descriptorOf(each.webauthn)]));
    const name = user.email ?? user.phone ?? user.id;
    const { options, challenge } = await ceremony.registrationOptions({
      user: { id: user.id, name, displayName: name },
      exclude: registered,
      residentKey: "discouraged",
      userVerification,
    });
    return offered("create", { options, challenge, userVerification });
  }
  // Only this factor's credential may answer: a signature of another factor's key verifies that one, not this.
  const { options, challenge } = await ceremony.authenticationOptions({
    allow: [descriptorOf(factor.webauthn)],
    userVerification,
  });
  return offered("request", { options, challenge, userVerification });
}

function offered(
  type: "create" | "request",
  {
    options,
    challenge,
    userVerification,
  }: { options: Readonly<Record<string, unknown>>; challenge: string; userVerification: UserVerification },
): FactorCeremony {
  // GoTrue hands out its library's CredentialCreation / CredentialAssertion: the options under `publicKey`.
  return {
    expected: { type, challenge, userVerification },
    offer: { type, credentialOptions: { publicKey: options } },
  };
}

/** A WebAuthn factor's verification as the request sends it (GoTrue's `webauthn` parameter). */
export interface WebAuthnAnswer {
  readonly type: string | undefined;
  readonly credentialResponse: unknown;
}

/** The answer's fields, in GoTrue's words when one is missing or wrong. */
function readWebAuthnAnswer(answer: WebAuthnAnswer | undefined): {
  type: "create" | "request";
  response: unknown;
} {
  if (answer === undefined) throw new AuthError("validation_failed", "WebAuthn config required");
  if (answer.type !== "create" && answer.type !== "request") {
    throw new AuthError("validation_failed", "WebAuthn type must be create or request");
  }
  if (answer.credentialResponse === undefined || answer.credentialResponse === null) {
    throw new AuthError("validation_failed", "credential_response required");
  }
  return { type: answer.type, response: answer.credentialResponse };
}

/**
 * The factor's credential as the answer to `challenge` leaves it: registered by a `create`, its counter moved by a
 * `request`; null when the answer does not verify (of another type than the challenge's, another credential, a
 * counter gone backwards).
 */
export async function verifiedFactorKey(
  deps: Deps,
  { factor, challenge, answer }: { factor: Factor; challenge: MfaChallenge; answer: WebAuthnAnswer | undefined },
): Promise<WebAuthnKey | null> {
  const { type, response } = readWebAuthnAnswer(answer);
  const expected = challenge.webauthn;
  if (expected === null || expected.type !== type) return null;
  const ceremony = factorCeremony(deps);
  if (type === "create") return factor.webauthn === null ? ceremony.verifyRegistration(response, expected) : null;
  const key = factor.webauthn;
  if (key === null || ceremony.assertionSubject(response)?.credentialId !== key.credentialId) return null;
  const verified = await ceremony.verifyAuthentication(response, { ...expected, key });
  if (verified === null) return null;
  if (!counterMayFollow(key.signCount, verified.signCount)) {
    // security: a clone of the key, as for passkeys (sign-in-with-passkey.ts).
    deps.events.record({
      kind: "webauthn_counter_regressed",
      credential: "factor",
      id: factor.id,
      userId: factor.userId,
    });
    return null;
  }
  return { ...key, signCount: verified.signCount, backedUp: verified.backedUp };
}
